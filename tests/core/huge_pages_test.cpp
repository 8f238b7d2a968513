#include "core/huge_pages.hpp"

#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <bit>
#include <cstdint>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

TEST_CASE("huge_allocate: blocks over 1 MiB start on a 2 MiB boundary and are writable") {
  for (std::size_t bytes :
       {(std::size_t{1} << 20) + 1, (std::size_t{3} << 20) + 17, std::size_t{8} << 20}) {
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

TEST_CASE("huge_allocate: blocks of up to 1 MiB on their size, smaller ones on their alignment") {
  for (std::size_t bytes : {tok::kMinHugeBlock, tok::kMinHugeBlock + 1, std::size_t{1} << 20}) {
    auto* p = static_cast<unsigned char*>(tok::huge_allocate(bytes));
    CHECK(reinterpret_cast<std::uintptr_t>(p) % std::bit_ceil(bytes) == 0);
    p[bytes - 1] = 1;
    tok::huge_deallocate(p, bytes);
  }
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

namespace {

struct Block {
  unsigned char* p;
  std::size_t bytes;
  unsigned char mark;
};

// Allocates and frees blocks of 64 KiB to 1 MiB at random, each filled with
// its own mark; returns how many blocks were found overwritten or
// overlapping a live block.
std::size_t churn(unsigned seed, int steps) {
  std::mt19937 rng(seed);
  std::vector<Block> live;
  std::size_t bad = 0;
  auto check_free = [&](const Block& b) {
    bad += b.p[0] != b.mark || b.p[b.bytes / 2] != b.mark || b.p[b.bytes - 1] != b.mark;
    tok::huge_deallocate(b.p, b.bytes);
  };
  for (int step = 0; step < steps; ++step) {
    if (!live.empty() && rng() % 3 == 0) {
      std::size_t k = rng() % live.size();
      check_free(live[k]);
      live[k] = live.back();
      live.pop_back();
      continue;
    }
    std::size_t bytes =
        tok::kMinHugeBlock + rng() % ((std::size_t{1} << 20) - tok::kMinHugeBlock + 1);
    Block b{static_cast<unsigned char*>(tok::huge_allocate(bytes)), bytes,
            static_cast<unsigned char>(1 + rng() % 255)};
    for (const Block& o : live) bad += b.p < o.p + o.bytes && o.p < b.p + b.bytes;
    std::memset(b.p, b.mark, b.bytes);
    live.push_back(b);
  }
  for (const Block& b : live) check_free(b);
  return bad;
}

}  // namespace

TEST_CASE("huge_allocate: blocks of up to 1 MiB share huge pages and never overlap") {
  // Two small blocks taken one after the other come from one 2 MiB page.
  auto* a = static_cast<unsigned char*>(tok::huge_allocate(tok::kMinHugeBlock));
  auto* b = static_cast<unsigned char*>(tok::huge_allocate(tok::kMinHugeBlock));
  constexpr std::uintptr_t kPage = std::uintptr_t{2} << 20;
  CHECK(a != b);
  CHECK(reinterpret_cast<std::uintptr_t>(a) / kPage == reinterpret_cast<std::uintptr_t>(b) / kPage);
  tok::huge_deallocate(a, tok::kMinHugeBlock);
  tok::huge_deallocate(b, tok::kMinHugeBlock);
  CHECK(churn(1, 2000) == 0);
  // Two threads at once (the encoder's caches are per thread).
  std::size_t bad[2] = {};
  std::thread t([&] { bad[0] = churn(2, 2000); });
  bad[1] = churn(3, 2000);
  t.join();
  CHECK(bad[0] == 0);
  CHECK(bad[1] == 0);
}

TEST_CASE("huge_allocate: a child forked while another thread allocates can allocate") {
  // Without the fork handlers a child could inherit the shared pages' lock
  // held by the other thread and hang on its first block.
  std::atomic<bool> stop{false};
  std::thread churner([&] {
    while (!stop) tok::huge_deallocate(tok::huge_allocate(tok::kMinHugeBlock), tok::kMinHugeBlock);
  });
  for (int i = 0; i < 50; ++i) {
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      tok::huge_deallocate(tok::huge_allocate(tok::kMinHugeBlock), tok::kMinHugeBlock);
      ::_exit(0);
    }
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  stop = true;
  churner.join();
}
