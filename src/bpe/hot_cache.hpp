// HotCache: a small direct-mapped cache of the most recent short pieces and
// their tokens (up to 3), kept in L2-sized memory (16384 slots x 32 bytes).
// Text is Zipf-distributed: a few thousand words make most of it, and this
// cache answers them without touching the merge table's multi-megabyte index.
// Per-thread scratch, never shared.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "bpe/merge_table.hpp"

namespace tok::bpe {

class HotCache {
 public:
  static constexpr std::size_t kMaxBytes = 16;
  static constexpr std::size_t kMaxTokens = 3;

  // Tokens of piece (size <= kMaxBytes, hash h) or 0 when absent.
  std::size_t find(std::string_view piece, std::uint64_t h, TokenId* out) const {
    if (slots_.empty()) return 0;
    const Slot& s = slots_[h & kMask];
    std::uint64_t k0, k1;
    key(piece, k0, k1);
    if (s.meta != meta(h, piece.size()) || s.k0 != k0 || s.k1 != k1) return 0;
    std::memcpy(out, s.tokens, sizeof(s.tokens));
    return s.count;
  }
  void insert(std::string_view piece, std::uint64_t h, const TokenId* toks, std::size_t n) {
    if (piece.size() > kMaxBytes || n == 0 || n > kMaxTokens) return;
    if (slots_.empty()) slots_.resize(kMask + 1);
    Slot& s = slots_[h & kMask];
    key(piece, s.k0, s.k1);
    s.meta = meta(h, piece.size());
    s.count = static_cast<std::uint32_t>(n);
    std::memcpy(s.tokens, toks, n * sizeof(TokenId));
  }

 private:
  static constexpr std::uint64_t kMask = (1 << 14) - 1;
  struct Slot {
    std::uint64_t k0 = 0, k1 = 0;  // the piece's bytes, zero-padded
    std::uint32_t meta = 0;        // length | hash tag; 0 = empty (length >= 1)
    std::uint32_t count = 0;
    TokenId tokens[kMaxTokens] = {};
    std::uint32_t pad_ = 0;
  };
  static void key(std::string_view p, std::uint64_t& k0, std::uint64_t& k1) {
    char buf[16] = {};
    std::memcpy(buf, p.data(), p.size() < 16 ? p.size() : 16);
    std::memcpy(&k0, buf, 8);
    std::memcpy(&k1, buf + 8, 8);
  }
  static std::uint32_t meta(std::uint64_t h, std::size_t len) {
    return static_cast<std::uint32_t>((h >> 40) << 8) | static_cast<std::uint32_t>(len);
  }
  std::vector<Slot> slots_;
};

}  // namespace tok::bpe
