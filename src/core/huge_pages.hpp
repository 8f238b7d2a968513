// HugePageAllocator: a std allocator whose large blocks (kMinHugeBlock and
// up) are anonymous mappings aligned to 2 MiB and advised for transparent
// huge pages (MADV_HUGEPAGE). For caches that are allocated once and then
// written all over (the encoder's piece cache: ~20 MB on a big file; its hot
// and pair caches, 512 and 256 KiB): one page fault per 2 MiB instead of one
// per 4 KiB. In a VM a fault costs microseconds (11-16 us a 4 KiB page on
// machine C of BENCHMARKS.md, 150 us a zeroed 2 MiB page, so from 64 KiB,
// 16 small pages, a huge page costs less); 4 KiB faults were 7% of
// `tok encode` on a 25 MB file. Smaller blocks come from operator new; where
// huge pages are off (or, off Linux, MADV_HUGEPAGE does not exist) the memory
// is plain anonymous pages. Blocks of up to 1 MiB share huge pages (a
// process's first encode would otherwise zero a 2 MiB page for each of its
// caches); they stay with the process when freed, for the next such block.
// Thread-safe, and safe to fork() from while other threads allocate.
#pragma once

#include <cstddef>
#include <new>

namespace tok {

// Blocks of at least this many bytes are mapped for huge pages.
inline constexpr std::size_t kMinHugeBlock = std::size_t{64} << 10;

// Raw blocks: huge_allocate never returns null (throws std::bad_alloc);
// huge_deallocate takes the size and alignment that were asked for. A block
// below kMinHugeBlock is aligned to `align` (a power of two); one of up to
// 1 MiB to its size rounded up to a power of two; a larger one to 2 MiB.
void* huge_allocate(std::size_t bytes, std::size_t align = __STDCPP_DEFAULT_NEW_ALIGNMENT__);
void huge_deallocate(void* p, std::size_t bytes,
                     std::size_t align = __STDCPP_DEFAULT_NEW_ALIGNMENT__) noexcept;
// Advises transparent huge pages for the whole pages inside [p, p + bytes)
// of memory allocated elsewhere (a large std::vector reserved up front and
// then filled): advice only, nothing happens where it is refused.
void advise_huge_pages(void* p, std::size_t bytes) noexcept;

template <class T>
struct HugePageAllocator {
  using value_type = T;
  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(huge_allocate(n * sizeof(T), alignof(T)));
  }
  void deallocate(T* p, std::size_t n) noexcept { huge_deallocate(p, n * sizeof(T), alignof(T)); }
  template <class U>
  bool operator==(const HugePageAllocator<U>&) const noexcept {
    return true;
  }
};

}  // namespace tok
