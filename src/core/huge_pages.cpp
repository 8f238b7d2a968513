#include "core/huge_pages.hpp"

#include <sys/mman.h>

#include <cstdint>

namespace tok {
namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;

std::size_t round_up(std::size_t bytes) { return (bytes + kHugePage - 1) / kHugePage * kHugePage; }

}  // namespace

void* huge_allocate(std::size_t bytes, std::size_t align) {
  if (bytes < kMinHugeBlock) {
    if (align > __STDCPP_DEFAULT_NEW_ALIGNMENT__) {
      return ::operator new (bytes, std::align_val_t{align});
    }
    return ::operator new(bytes);
  }
  if (bytes > SIZE_MAX - 2 * kHugePage) throw std::bad_alloc();
  std::size_t len = round_up(bytes);
  // Map one huge page more than needed and trim both ends, so the block
  // starts on a 2 MiB boundary: the kernel only backs aligned, fully covered
  // 2 MiB ranges with huge pages.
  void* raw =
      ::mmap(nullptr, len + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  auto start = reinterpret_cast<std::uintptr_t>(raw);
  std::uintptr_t aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
  std::size_t head = aligned - start, tail = kHugePage - head;
  if (head) ::munmap(raw, head);
  if (tail) ::munmap(reinterpret_cast<void*>(aligned + len), tail);
  void* p = reinterpret_cast<void*>(aligned);
#if defined(MADV_HUGEPAGE)
  (void)::madvise(p, len, MADV_HUGEPAGE);  // advice only: fine if refused
#endif
  return p;
}

void advise_huge_pages(void* p, std::size_t bytes) noexcept {
#if defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t kPage = 4096;
  auto start = (reinterpret_cast<std::uintptr_t>(p) + kPage - 1) & ~(kPage - 1);
  auto end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(kPage - 1);
  if (end > start) (void)::madvise(reinterpret_cast<void*>(start), end - start, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

void huge_deallocate(void* p, std::size_t bytes, std::size_t align) noexcept {
  if (!p) return;
  if (bytes < kMinHugeBlock) {
    if (align > __STDCPP_DEFAULT_NEW_ALIGNMENT__) {
      ::operator delete (p, std::align_val_t{align});
    } else {
      ::operator delete(p);
    }
  } else {
    ::munmap(p, round_up(bytes));
  }
}

}  // namespace tok
