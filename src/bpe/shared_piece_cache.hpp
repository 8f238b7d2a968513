// SharedPieceCache: pieces and their tokens, shared by the threads that
// encode one large text (encode_in_order, the threaded count).
//
// With a private PieceCache per thread, a word first seen in two threads'
// chunks is merged twice; on the 24 MB mix two threads then spent 1.28x the
// CPU time of one. Here a piece merged by one thread answers every thread.
//
// Insert-only and lock-free. A slot is one 64-bit word, 0 while empty, then
// (hash tag << 32 | record offset), written once by compare-and-swap after
// its record is complete (release; finds load it with acquire). Records
// (counts, tokens, piece bytes) are never changed or freed while the cache
// lives, so a found pointer stays valid. Each thread takes arena space in
// blocks (an InsertCursor), so an insert touches no shared counter but the
// slot itself.
//
// The table never grows (growing under concurrent finds needs more than one
// word per slot): it is sized for the text, and once the arena is used up
// inserts fail (insert returns false) and callers fall back to their private
// cache. The arena holds at most slots / 2 of the smallest records, so at
// least half the slots stay empty and every probe sequence ends.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>

#include "bpe/merge_table.hpp"

namespace tok::bpe {

class SharedPieceCache {
 public:
  static constexpr std::size_t kMaxPieceBytes = 256;
  static constexpr std::size_t kMaxTokens = 256;  // so any piece of kMaxPieceBytes fits

  // Where one thread appends records: a block of the arena of its own.
  struct InsertCursor {
    std::size_t at = 0, end = 0;
  };

  // A cache for a text of text_bytes bytes (more slots for longer texts,
  // within fixed bounds: 8 MiB of slots at most).
  explicit SharedPieceCache(std::size_t text_bytes);
  // The same, or nullptr when its memory cannot be had: the threads then
  // keep private caches (slower, never wrong).
  static std::unique_ptr<SharedPieceCache> create(std::size_t text_bytes) noexcept;
  ~SharedPieceCache();
  SharedPieceCache(const SharedPieceCache&) = delete;
  SharedPieceCache& operator=(const SharedPieceCache&) = delete;

  // Tokens of piece (h = hash_bytes(piece)), or nullptr; *n receives their count.
  const TokenId* find(std::string_view piece, std::uint64_t h, std::size_t* n) const {
    for (std::uint64_t i = h & mask_;; i = (i + 1) & mask_) {
      std::uint64_t w = slots_[i].load(std::memory_order_acquire);
      if (w == 0) return nullptr;
      if ((w >> 32) != tag(h)) continue;
      const unsigned char* r = record(w);
      if (r[0] != piece.size() - 1) continue;
      std::size_t k = std::size_t{r[1]} + 1;
      const unsigned char* key = r + kHeader + k * sizeof(TokenId);
      if (std::memcmp(key, piece.data(), piece.size()) != 0) continue;
      *n = k;
      return reinterpret_cast<const TokenId*>(r + kHeader);
    }
  }
  void prefetch(std::uint64_t h) const { __builtin_prefetch(&slots_[h & mask_]); }
  // Adds piece -> toks[0..n) unless present. False when the arena is used up
  // (the piece was not added, nor will later ones be) or the piece is too
  // long for the cache; true otherwise.
  bool insert(std::string_view piece, std::uint64_t h, const TokenId* toks, std::size_t n,
              InsertCursor& cursor);

  std::size_t slots() const { return mask_ + 1; }

 private:
  // A record: piece length - 1 and token count - 1 (one byte each), two bytes of
  // padding, the tokens, the piece's bytes; offsets are in 4-byte units.
  static constexpr std::size_t kHeader = 4;
  static constexpr std::size_t kBlock = 64 << 10;
  static std::uint32_t tag(std::uint64_t h) { return static_cast<std::uint32_t>(h >> 32) | 1; }
  const unsigned char* record(std::uint64_t w) const { return arena_ + (w & 0xffffffffu) * 4; }

  std::uint64_t mask_;
  std::size_t arena_bytes_;
  std::atomic<std::uint64_t>* slots_;
  unsigned char* arena_;
  std::atomic<std::size_t> arena_next_{0};  // (a slot word is never 0: tag() is odd)
};

}  // namespace tok::bpe
