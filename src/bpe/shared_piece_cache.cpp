#include "bpe/shared_piece_cache.hpp"

#include <algorithm>
#include <bit>
#include <new>

#include "core/huge_pages.hpp"

namespace tok::bpe {
namespace {

constexpr std::size_t kMinSlots = std::size_t{1} << 12;
constexpr std::size_t kMaxSlots = std::size_t{1} << 20;  // 8 MiB
// The smallest record: header, one token, one byte, rounded to 4.
constexpr std::size_t kMinRecord = 12;

std::size_t round4(std::size_t n) { return (n + 3) & ~std::size_t{3}; }

}  // namespace

// About one slot per 24 bytes of text: the 24 MB mix inserts about 130,000
// pieces, and a quarter-full table probes little.
SharedPieceCache::SharedPieceCache(std::size_t text_bytes) {
  std::size_t want = std::bit_ceil(std::max<std::size_t>(text_bytes / 24, 1));
  std::size_t n = std::clamp(want, kMinSlots, kMaxSlots);
  mask_ = n - 1;
  arena_bytes_ = n / 2 * kMinRecord;
  slots_ = static_cast<std::atomic<std::uint64_t>*>(huge_allocate(n * sizeof(*slots_)));
  for (std::size_t i = 0; i < n; ++i) new (&slots_[i]) std::atomic<std::uint64_t>(0);
  try {
    arena_ = static_cast<unsigned char*>(huge_allocate(arena_bytes_));
  } catch (...) {
    huge_deallocate(slots_, n * sizeof(*slots_));
    throw;
  }
}

std::unique_ptr<SharedPieceCache> SharedPieceCache::create(std::size_t text_bytes) noexcept {
  try {
    return std::make_unique<SharedPieceCache>(text_bytes);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}

SharedPieceCache::~SharedPieceCache() {
  huge_deallocate(arena_, arena_bytes_);
  huge_deallocate(slots_, slots() * sizeof(*slots_));
}

bool SharedPieceCache::insert(std::string_view piece, std::uint64_t h, const TokenId* toks,
                              std::size_t n, InsertCursor& cursor) {
  if (piece.empty() || piece.size() > kMaxPieceBytes || n == 0 || n > kMaxTokens) return true;
  std::size_t bytes = round4(kHeader + n * sizeof(TokenId) + piece.size());
  if (cursor.end - cursor.at < bytes) {
    std::size_t b = arena_next_.fetch_add(kBlock, std::memory_order_relaxed);
    if (b >= arena_bytes_) {
      cursor = {};
      return false;
    }
    cursor = {b, std::min(b + kBlock, arena_bytes_)};
    if (cursor.end - cursor.at < bytes) return false;  // the arena's short last block
  }
  // The record first, in this thread's own block (no other thread reads it
  // until the slot below points at it).
  unsigned char* r = arena_ + cursor.at;
  r[0] = static_cast<unsigned char>(piece.size() - 1);
  r[1] = static_cast<unsigned char>(n - 1);
  r[2] = r[3] = 0;
  std::memcpy(r + kHeader, toks, n * sizeof(TokenId));
  std::memcpy(r + kHeader + n * sizeof(TokenId), piece.data(), piece.size());
  const std::uint64_t w = std::uint64_t{tag(h)} << 32 | cursor.at / 4;
  for (std::uint64_t i = h & mask_;; i = (i + 1) & mask_) {
    std::uint64_t cur = slots_[i].load(std::memory_order_acquire);
    if (cur == 0) {
      if (slots_[i].compare_exchange_strong(cur, w, std::memory_order_release,
                                            std::memory_order_acquire)) {
        cursor.at += bytes;
        return true;
      }
      // Another thread filled this slot first: cur is its word.
    }
    if ((cur >> 32) == tag(h)) {
      const unsigned char* o = record(cur);
      if (o[0] == piece.size() - 1 && std::memcmp(o + kHeader + (o[1] + 1) * sizeof(TokenId),
                                                  piece.data(), piece.size()) == 0) {
        return true;  // the same piece, added by another thread (our space is reused)
      }
    }
  }
}

}  // namespace tok::bpe
