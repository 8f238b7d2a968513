// WordBits: the words of a text as two bitmaps over its boundary positions
// 0..n (position p is the boundary before byte p): `starts` has bit b for
// every word [b, e), `inside` has bits b+1 .. e-1, the boundaries a word
// spans. Segmenter fills it (the ASCII kernel ors 64 positions at a time)
// and words are counted by a popcount.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace tok::compare {

struct ByteSpan {
  std::size_t begin = 0;
  std::size_t end = 0;  // one past the last byte
};

class WordBits {
 public:
  // An empty set of words over n bytes.
  void reset(std::size_t n);
  std::size_t size() const { return n_; }
  // Adds the word [b, e): b < e <= size(), disjoint from the words added.
  void add(std::size_t b, std::size_t e);
  // Ors the masks of 64 positions from `at` on into the bitmaps (the ASCII
  // kernel's output; bits past size() must be zero).
  void add_block(std::size_t at, std::uint64_t starts, std::uint64_t inside) {
    or_bits(starts_, at, starts);
    or_bits(inside_, at, inside);
  }
  // Drops the bits of positions [b, e) (the words of a fragment scan that
  // turned out to need ICU).
  void clear(std::size_t b, std::size_t e);
  std::size_t count() const;
  // The words as spans, in text order, appended to out.
  void spans(std::vector<ByteSpan>& out) const;
  // (size() / 64 + 2) words; the last ones are zero past size().
  std::span<const std::uint64_t> inside() const { return inside_; }

 private:
  static void or_bits(std::vector<std::uint64_t>& v, std::size_t at, std::uint64_t mask) {
    unsigned sh = at & 63;
    v[at >> 6] |= mask << sh;
    if (sh) v[(at >> 6) + 1] |= mask >> (64 - sh);
  }
  std::size_t n_ = 0;
  std::vector<std::uint64_t> starts_, inside_;  // (n / 64 + 2) bit p = position p
};

// Set bits of w. std::popcount is a libgcc call without -mpopcnt (this
// builds for baseline x86-64); these run once per 64 bytes of text.
inline unsigned popcount64(std::uint64_t w) {
#if defined(__POPCNT__) || !defined(__x86_64__)
  return static_cast<unsigned>(__builtin_popcountll(w));
#else
  w -= (w >> 1) & 0x5555555555555555u;
  w = (w & 0x3333333333333333u) + ((w >> 2) & 0x3333333333333333u);
  w = (w + (w >> 4)) & 0x0F0F0F0F0F0F0F0Fu;
  return static_cast<unsigned>((w * 0x0101010101010101u) >> 56);
#endif
}

}  // namespace tok::compare
