#include "core/huge_pages.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

TEST_CASE("huge_allocate: large blocks start on a 2 MiB boundary and are writable") {
  for (std::size_t bytes :
       {std::size_t{1} << 20, (std::size_t{3} << 20) + 17, std::size_t{8} << 20}) {
    auto* p = static_cast<unsigned char*>(tok::huge_allocate(bytes));
    CHECK(reinterpret_cast<std::uintptr_t>(p) % (std::size_t{2} << 20) == 0);
    p[0] = 1;
    p[bytes - 1] = 2;
    CHECK(p[0] + p[bytes - 1] == 3);
    tok::huge_deallocate(p, bytes);
  }
}

TEST_CASE("HugePageAllocator: a vector grows across the huge-block threshold intact") {
  std::vector<std::uint32_t, tok::HugePageAllocator<std::uint32_t>> v;
  for (std::uint32_t i = 0; i < 3'000'000; ++i) v.push_back(i * 7);
  std::uint64_t bad = 0;
  for (std::uint32_t i = 0; i < v.size(); ++i) bad += v[i] != i * 7;
  CHECK(bad == 0);
  v.assign(10, 5);
  v.shrink_to_fit();
  CHECK(v.size() == 10);
  CHECK(v[9] == 5);
}

TEST_CASE("huge_allocate: kMinHugeBlock on 2 MiB, smaller blocks keep their alignment") {
  auto* big = static_cast<unsigned char*>(tok::huge_allocate(tok::kMinHugeBlock));
  CHECK(reinterpret_cast<std::uintptr_t>(big) % (std::size_t{2} << 20) == 0);
  big[tok::kMinHugeBlock - 1] = 1;
  tok::huge_deallocate(big, tok::kMinHugeBlock);
  // Over-aligned elements (the hot cache's 32-byte slots) below the threshold.
  struct alignas(64) Slot {
    unsigned char bytes[64];
  };
  for (std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{100}}) {
    std::vector<Slot, tok::HugePageAllocator<Slot>> v(n);
    CHECK(reinterpret_cast<std::uintptr_t>(v.data()) % alignof(Slot) == 0);
    v.back().bytes[63] = 7;
    CHECK(v.back().bytes[63] == 7);
  }
}
