// HotCache: a small direct-mapped cache of the most recent short pieces and
// their tokens (up to 3), kept in L2-sized memory (16384 slots x 32 bytes,
// one cache line per lookup).
// Text is Zipf-distributed: a few thousand words make most of it, and this
// cache answers them without touching the merge table's multi-megabyte index.
// Per-thread scratch, never shared.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "bpe/merge_table.hpp"
#include "core/huge_pages.hpp"

namespace tok::bpe {

class HotCache {
 public:
  static constexpr std::size_t kMaxBytes = 16;
  static constexpr std::size_t kMaxTokens = 3;

  // Tokens of piece (size <= kMaxBytes, hash h) or 0 when absent.
  std::size_t find(std::string_view piece, std::uint64_t h, TokenId* out) const {
    return find(short_key(reinterpret_cast<const unsigned char*>(piece.data()), piece.size()),
                piece.size(), h, out);
  }
  // The same for a piece of n (1..kMaxBytes) bytes given by its ShortKey.
  std::size_t find(ShortKey k, std::size_t n, std::uint64_t h, TokenId* out) const {
    return find_as(k, n, h, out, ~kUnchecked);
  }
  // The same for a part cut from a piece: an answer inserted as unchecked is
  // not one.
  std::size_t find_part(ShortKey k, std::size_t n, std::uint64_t h, TokenId* out) const {
    return find_as(k, n, h, out, ~std::uint32_t{0});
  }
  // Takes its full size now (a large text fills it anyway; growing there
  // drops the contents three times).
  void reserve_full() {
    if (slots_.size() >= kMaxSlots) return;
    slots_.assign(kMaxSlots, Slot{});
    mask_ = slots_.size() - 1;
    inserts_ = 0;
  }
  // Starts loading the slot for hash h (see encode_pieces).
  void prefetch(std::uint64_t h) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[h & mask_]);
  }
  // unchecked: the answer is a token found by looking the piece up whole,
  // not known to be what the piece's merges make (the encoder's answer for a
  // piece, not yet for a part cut from one).
  void insert(std::string_view piece, std::uint64_t h, const TokenId* toks, std::size_t n,
              bool unchecked = false) {
    if (piece.size() > kMaxBytes || n == 0 || n > kMaxTokens) return;
    for (std::size_t i = 0; i < n; ++i) {
      if (toks[i] == kNoToken) return;  // kNoToken marks unused token places
    }
    // Start small and grow (dropping the contents: it is only a cache), so a
    // scratch used for one small file costs little to create.
    if (slots_.empty() || (++inserts_ > 4 * slots_.size() && slots_.size() < kMaxSlots)) {
      slots_.assign(slots_.empty() ? kMinSlots : slots_.size() * 4, Slot{});
      mask_ = slots_.size() - 1;
      inserts_ = 0;
    }
    Slot& s = slots_[h & mask_];
    ShortKey k = short_key(reinterpret_cast<const unsigned char*>(piece.data()), piece.size());
    s.k0 = k.k0;
    s.k1 = k.k1;
    s.meta = meta(h, piece.size()) | (unchecked ? kUnchecked : 0);
    for (std::size_t i = 0; i < kMaxTokens; ++i) s.tokens[i] = i < n ? toks[i] : kNoToken;
  }

 private:
  static constexpr std::size_t kMinSlots = 1 << 8;
  static constexpr std::size_t kMaxSlots = 1 << 14;
  std::uint64_t mask_ = 0;
  std::size_t inserts_ = 0;
  // 32 bytes, aligned: a lookup touches exactly one cache line.
  struct alignas(32) Slot {
    std::uint64_t k0 = 0, k1 = 0;  // the piece's bytes, zero-padded
    std::uint32_t meta = 0;        // length | hash tag; 0 = empty (length >= 1)
    TokenId tokens[kMaxTokens] = {kNoToken, kNoToken, kNoToken};  // unused: kNoToken
  };
  static_assert(sizeof(Slot) == 32);
  // A flag in meta beside the length (at most kMaxBytes, five bits).
  static constexpr std::uint32_t kUnchecked = 0x20;
  static_assert(kMaxBytes < kUnchecked);
  std::size_t find_as(ShortKey k, std::size_t n, std::uint64_t h, TokenId* out,
                      std::uint32_t meta_mask) const {
    if (slots_.empty()) return 0;
    const Slot& s = slots_[h & mask_];
    if ((s.meta & meta_mask) != meta(h, n) || s.k0 != k.k0 || s.k1 != k.k1) return 0;
    std::memcpy(out, s.tokens, sizeof(s.tokens));
    return std::size_t{s.tokens[1] != kNoToken} + (s.tokens[2] != kNoToken) + 1;
  }
  static std::uint32_t meta(std::uint64_t h, std::size_t len) {
    return static_cast<std::uint32_t>((h >> 40) << 8) | static_cast<std::uint32_t>(len);
  }
  // Huge pages at full size (512 KiB: 128 page faults of 4 KiB otherwise).
  std::vector<Slot, HugePageAllocator<Slot>> slots_;
};

}  // namespace tok::bpe
