#include "core/huge_pages.hpp"

#include <pthread.h>
#include <sys/mman.h>

#include <cstdint>
#include <mutex>
#include <new>

namespace tok {
namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;

std::size_t round_up(std::size_t bytes) { return (bytes + kHugePage - 1) / kHugePage * kHugePage; }

// A 2 MiB-aligned mapping of len bytes (a multiple of kHugePage), advised
// for huge pages.
void* map_huge(std::size_t len) {
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

// Blocks of kMinHugeBlock up to kMaxSharedBlock share huge pages: a huge
// page is zeroed whole on its first touch (about 150 us in a VM), and one
// encoder's caches (hot, pair, piece-cache arrays, the merge-reach note: six
// to nine blocks of 64 KiB to 1 MiB) each on a page of its own cost a
// process's first encode about 1 ms before it read a byte. Each block is
// rounded up to a power of two and placed at a multiple of its size in a
// 2 MiB chunk, the space skipped to align it going to the free lists; a freed
// block goes to its size's free list, and a block is taken from the smallest
// free one that fits, halved down to size (no merging back: the chunks are
// kept for the process, and what is free is bounded by what was once in use).
constexpr std::size_t kMaxSharedBlock = std::size_t{1} << 20;
constexpr unsigned kMinShift = 16;  // kMinHugeBlock
constexpr unsigned kClasses = 5;    // 64 KiB .. 1 MiB
static_assert(kMinHugeBlock == std::size_t{1} << kMinShift);
static_assert(kMaxSharedBlock == kMinHugeBlock << (kClasses - 1));

unsigned size_class(std::size_t bytes) {
  unsigned c = 0;
  while ((kMinHugeBlock << c) < bytes) ++c;
  return c;
}

class SharedPages {
 public:
  void* take(std::size_t bytes) {
    const unsigned want = size_class(bytes);
    std::lock_guard lock(mutex_);
    for (unsigned c = want; c < kClasses; ++c) {
      if (free_[c] == nullptr) continue;
      auto* p = reinterpret_cast<unsigned char*>(pop(c));
      // Halve down to size; the upper halves stay free.
      while (c > want) {
        --c;
        push(c, p + (kMinHugeBlock << c));
      }
      return p;
    }
    const std::size_t size = kMinHugeBlock << want;
    std::size_t at = (used_ + size - 1) / size * size;
    if (chunk_ == nullptr || at + size > kHugePage) {
      release_range(used_, kHugePage);
      chunk_ = static_cast<unsigned char*>(map_huge(kHugePage));
      used_ = 0;
      at = 0;
    }
    release_range(used_, at);
    used_ = at + size;
    return chunk_ + at;
  }
  void lock() { mutex_.lock(); }
  void unlock() { mutex_.unlock(); }
  void give(void* p, std::size_t bytes) {
    std::lock_guard lock(mutex_);
    push(size_class(bytes), p);
  }

 private:
  // Puts [from, to) of the current chunk (multiples of kMinHugeBlock) on the
  // free lists as the largest aligned blocks that tile it.
  void release_range(std::size_t from, std::size_t to) {
    if (chunk_ == nullptr) return;
    while (from < to) {
      unsigned c = kClasses - 1;
      while ((from & ((kMinHugeBlock << c) - 1)) != 0 || from + (kMinHugeBlock << c) > to) --c;
      push(c, chunk_ + from);
      from += kMinHugeBlock << c;
    }
  }
  // The free lists are threaded through the free blocks themselves, so that
  // freeing never allocates.
  struct Free {
    Free* next;
  };
  void push(unsigned c, void* p) { free_[c] = new (p) Free{free_[c]}; }
  Free* pop(unsigned c) {
    Free* f = free_[c];
    free_[c] = f->next;
    return f;
  }
  std::mutex mutex_;
  unsigned char* chunk_ = nullptr;
  std::size_t used_ = 0;
  Free* free_[kClasses] = {};
};

SharedPages& shared_pages() {
  // Never destroyed: blocks may outlive statics. The lock is held across
  // fork(), so that a child forked while another thread took or gave a
  // block (Python's multiprocessing) does not inherit it locked.
  static SharedPages* pages = [] {
    auto* p = new SharedPages;
    ::pthread_atfork([] { shared_pages().lock(); }, [] { shared_pages().unlock(); },
                     [] { shared_pages().unlock(); });
    return p;
  }();
  return *pages;
}

}  // namespace

void* huge_allocate(std::size_t bytes, std::size_t align) {
  if (bytes < kMinHugeBlock) {
    if (align > __STDCPP_DEFAULT_NEW_ALIGNMENT__) {
      return ::operator new (bytes, std::align_val_t{align});
    }
    return ::operator new(bytes);
  }
  if (bytes <= kMaxSharedBlock) return shared_pages().take(bytes);
  if (bytes > SIZE_MAX - 2 * kHugePage) throw std::bad_alloc();
  return map_huge(round_up(bytes));
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
  } else if (bytes <= kMaxSharedBlock) {
    shared_pages().give(p, bytes);
  } else {
    ::munmap(p, round_up(bytes));
  }
}

}  // namespace tok
