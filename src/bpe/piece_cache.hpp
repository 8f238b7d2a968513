// PieceCache: a bounded map from recently seen pieces to their tokens, so a
// word that BPE split once is not merged again. Real text repeats its words;
// on prose this removes most merge work. Per-thread scratch, never shared.
// It doubles as it fills; at kMaxEntries it is cleared (simple, and keeps
// memory bounded).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bpe/hash.hpp"
#include "bpe/merge_table.hpp"
#include "core/huge_pages.hpp"

namespace tok::bpe {

class PieceCache {
 public:
  static constexpr std::size_t kMaxPieceBytes = 256;
  static constexpr std::size_t kMaxEntries = 1 << 18;
  static constexpr std::size_t kMinEntries = 1 << 8;

  // Tokens of piece, or nullptr; *n receives their count.
  // h is hash_bytes(piece).
  const TokenId* find(std::string_view piece, std::uint64_t h, std::size_t* n) const {
    if (slots_.empty()) return nullptr;
    for (std::uint64_t i = h & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.key_len == 0) return nullptr;
      if (s.tag == tag(h) && s.key_len == piece.size() &&
          std::string_view(keys_.data() + s.key_off, s.key_len) == piece) {
        *n = s.tok_len;
        return tokens_.data() + s.tok_off;
      }
    }
  }
  void prefetch(std::uint64_t h) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[h & mask_]);
  }
  void insert(std::string_view piece, std::uint64_t h, const TokenId* toks, std::size_t n);
  // Room for about `entries` pieces before the first grow, when the cache
  // is still unused (a large text would otherwise rehash it at every
  // doubling on the way there).
  void reserve(std::size_t entries);

 private:
  // 16 bytes: the slots are most of the cache's memory, and every page of
  // them is zeroed when the table grows (a quarter of the cache's cost on a
  // 25 MB input when they were 24 bytes).
  struct Slot {
    std::uint32_t tag = 0;  // high half of the piece's hash (the low bits pick the slot)
    std::uint32_t key_off = 0, tok_off = 0;
    std::uint16_t key_len = 0;  // 0 = empty (pieces are never empty)
    std::uint16_t tok_len = 0;
  };
  static_assert(sizeof(Slot) == 16 && kMaxPieceBytes <= UINT16_MAX);
  static std::uint32_t tag(std::uint64_t h) { return static_cast<std::uint32_t>(h >> 32); }
  Slot& free_slot(std::uint64_t h);
  void grow();
  // Huge pages: the slots alone reach 8 MB, and are written all over.
  std::vector<Slot, HugePageAllocator<Slot>> slots_;
  std::uint64_t mask_ = 0;
  std::size_t entries_ = 0;
  std::size_t capacity_ = 0;  // entries before the next grow or clear
  std::vector<char, HugePageAllocator<char>> keys_;
  std::vector<TokenId, HugePageAllocator<TokenId>> tokens_;
};

}  // namespace tok::bpe
