// WordBits: the words of a text as two bitmaps over its boundary positions
// 0..n (position p is the boundary before byte p): `starts` has bit b for
// every word [b, e), `inside` has bits b+1 .. e-1, the boundaries a word
// spans. Segmenter fills it (the ASCII kernel ors 64 positions at a time)
// and words are counted by a popcount. A vocabulary's continued words
// (words with a token boundary inside) follow from `inside` and a bitmap of
// the token starts (TokenStarts) with a few word operations per 64 bytes,
// instead of a merge of a word-span list with a token-span list: on the
// 657 MB bench corpus that merge, once per vocabulary, cost more CPU than
// segmenting the text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "bpe/merge_table.hpp"

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

// Byte length of every token id of a vocabulary, one byte each (255: look
// in `long_len`), so that the table stays in cache while a chunk's tokens
// are walked.
struct TokenLengths {
  std::vector<std::uint8_t> len;        // (ids) min(length, 255)
  std::vector<std::uint32_t> long_len;  // (ids) the length, read when len is 255
};

// The start of every token of a vocabulary over a text, as a bitmap like
// WordBits', from the token ids and their lengths: for tokens that tile the
// text (token k starts where token k-1 ends, the first at 0), which the
// caller knows of its vocabulary and add() checks by the lengths adding up.
// The text comes in consecutive parts, each encoded on its own, so that a
// part's ids are still in cache when they are read here.
class TokenStarts {
 public:
  // No tokens yet, over `words`' text (kept by reference until the count).
  void reset(const WordBits& words);
  // The tokens of the next `bytes` bytes; false if they do not tile them
  // (an id unknown to `lengths`, lengths that do not add up to `bytes`).
  bool add(std::size_t bytes, std::span<const bpe::TokenId> ids, const TokenLengths& lengths);
  // Words that two or more tokens overlap: with tiling, those a token
  // starts strictly inside. nullopt unless every byte of the text was added.
  std::optional<std::size_t> count_continued();

 private:
  // Counts the words whose interiors end in 64-bit words [done_, end).
  void count_upto(std::size_t end);
  const WordBits* words_ = nullptr;
  std::size_t pos_ = 0;                // bytes added so far
  std::vector<std::uint64_t> starts_;  // (n / 64 + 2) bit p: a token starts at p
  std::size_t done_ = 0;               // 64-bit words counted
  std::size_t continued_ = 0;
  bool carry_ = false;  // out of word done_ - 1
  // (largest part + 64) == stamp_ where a token of the current part starts;
  // other values are older parts' (a new stamp per part instead of a clear).
  std::vector<std::uint8_t> marks_;
  std::uint8_t stamp_ = 0;
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
