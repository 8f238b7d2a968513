// Where a piece may be cut without changing its tokens (the encoder's
// lookup_cut; the bit set is built with the merge table and kept in its
// image).
//
// Every symbol byte-level BPE ever forms is a token (single bytes to start
// with, and each merge's result). So if no token can span byte p of a piece,
// no symbol ever does: the merges left of p and right of p never meet, and
// the two halves encode apart to the same tokens as the whole. A run of CJK
// or kana is one piece to the pre-tokenizer (100-200 bytes, almost never seen
// twice), but cut at such points it falls into short runs of one to three
// characters that repeat and that the caches answer.
//
// Cuts are only looked for between two multi-byte characters (a UTF-8
// continuation byte, then a lead byte): that is where they occur, and the
// tokens spanning such a point are few (about 800 in cl100k_base, 10,000 in
// o200k_base). For each, the bytes either side of the point it spans (one
// or two each) go into a bit set; a point of the text is safe when none of
// its four windows (one or two bytes left, one or two right) is in the set.
// A false positive only leaves a safe point uncut.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "core/utf8.hpp"

namespace tok::bpe::cuts {

// A candidate point: b[p - 1] a continuation byte, b[p] a lead byte.
inline bool candidate(const unsigned char* b, std::size_t p) {
  return b[p] >= 0xC0 && utf8::is_continuation(b[p - 1]);
}

// Calls f(p) for every candidate point p of b[0..n), in order. Eight points
// a step where the byte order allows (a run of CJK has a candidate every 3
// bytes; byte by byte, this scan was a tenth of a cut piece's cost): byte k
// of the mask has bit 7 set when b[p + k] is a lead byte (bits 7 and 6 set)
// and b[p + k - 1] a continuation byte (bit 7 set, bit 6 clear).
template <class F>
inline void for_each_candidate(const unsigned char* b, std::size_t n, F&& f) {
  std::size_t p = 1;
  if constexpr (std::endian::native == std::endian::little) {
    constexpr std::uint64_t kHigh = 0x8080808080808080ull;
    for (; p + 8 <= n; p += 8) {
      std::uint64_t x, y;
      std::memcpy(&x, b + p, 8);
      std::memcpy(&y, b + p - 1, 8);
      for (std::uint64_t m = x & (x << 1) & y & ~(y << 1) & kHigh; m; m &= m - 1) {
        f(p + (static_cast<std::size_t>(std::countr_zero(m)) >> 3));
      }
    }
  }
  for (; p < n; ++p) {
    if (candidate(b, p)) f(p);
  }
}

// The window around the point just before `right`: llen bytes before it and
// rlen from it (each 1 or 2).
inline std::uint64_t key(const unsigned char* right, std::size_t llen, std::size_t rlen) {
  std::uint64_t k = std::uint64_t{right[-1]} | std::uint64_t{right[0]} << 16;
  if (llen == 2) k |= std::uint64_t{right[-2]} << 8 | std::uint64_t{1} << 32;
  if (rlen == 2) k |= std::uint64_t{right[1]} << 24 | std::uint64_t{1} << 33;
  return k;
}

// The bit of key k in a set of 2^(64 - shift) bits.
inline std::uint64_t bit(std::uint64_t k, unsigned shift) {
  return (k * 0x9E3779B97F4A7C15ull) >> shift;
}

inline bool has(const std::uint64_t* words, unsigned shift, std::uint64_t k) {
  std::uint64_t b = bit(k, shift);
  return (words[b >> 6] >> (b & 63)) & 1;
}

// May `piece` be cut at candidate point p (0 < p < size)? words/shift: the set.
inline bool safe(const std::uint64_t* words, unsigned shift, std::string_view piece,
                 std::size_t p) {
  const auto* b = reinterpret_cast<const unsigned char*>(piece.data()) + p;
  const std::size_t n = piece.size();
  for (std::size_t llen = 1; llen <= 2 && llen <= p; ++llen) {
    for (std::size_t rlen = 1; rlen <= 2 && p + rlen <= n; ++rlen) {
      if (has(words, shift, key(b, llen, rlen))) return false;
    }
  }
  return true;
}

}  // namespace tok::bpe::cuts
