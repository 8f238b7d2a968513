// Character-first initial symbols for byte-level BPE with ranked merges
// (tiktoken's tables): a multi-byte character may enter the merge loop as
// the tokens its own bytes merge to, instead of as 2-4 bytes. On Thai,
// Devanagari, kana or CJK two merges in three form characters; starting from
// characters, a cold piece's merge loop asks far fewer pair questions.
//
// Why the result is the same. Take character c whose two boundaries in the
// piece are clean: no token that starts or ends inside a character spans
// them (MergeTable::mark_unclean; such tokens are exactly those that are
// not valid UTF-8). Then no symbol holding part of c ever merges with a
// byte outside c, so c's own merges run as they would alone, in the same
// order, and touch nothing else; done first, they change nothing else either.
// What could differ is which merge across characters comes first: merged
// early, c offers its pairs with its neighbours sooner. Such a pair makes a
// valid token T holding c, and every merge of the byte-by-byte run made while
// c was still unformed ranks at most as high as c's pending merges. So if
// (1) c's last merge is its highest (its merges rank at most as high as its
// own token) and (2) every longer valid token holding c ranks strictly after
// c's token (MergeTable::outranked_char is false), then T ranks after every
// such merge and the byte-by-byte run takes its merges across characters in
// the same order. A character that merges to several tokens never meets its
// neighbours at all. Characters that fail (1) or (2), or sit next to an
// unclean boundary, start as bytes. tests/bpe/char_symbols_test.cpp compares
// both starts on every script's text and on random text built around the
// tokens that make boundaries unclean.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "bpe/merge_table.hpp"
#include "core/utf8.hpp"

namespace tok::bpe {

// Pieces shorter than this start as bytes: finding their unclean boundaries
// costs about what starting from characters saves on them.
inline constexpr std::size_t kMinCharSymbolBytes = 24;

// A character's bytes (2-4) as one little-endian word: the key of
// CharCache and of MergeTable::outranked_char.
inline std::uint32_t char_code(const unsigned char* p, std::size_t len) {
  std::uint32_t c = 0;
  for (std::size_t k = 0; k < len; ++k) c |= std::uint32_t{p[k]} << (8 * k);
  return c;
}

// The merge result of each character met so far, direct-mapped. Per scratch.
// A miss asks the encoder's own merge loop: merge(bytes, max_rank, out)
// appends to out the tokens merge_symbols makes of bytes with merges ranked
// below max_rank (the caller's symbols must be out of its way).
class CharCache {
 public:
  struct Entry {
    std::uint32_t code = 0;  // the character's bytes, little-endian (0: empty)
    TokenId tokens[4];
    std::uint8_t n = 0;      // its tokens
    std::uint8_t ok = 0;     // may start merged (conditions (1) and (2) above)
    std::uint8_t offset[4];  // where each token starts in the character
  };
  // The entry of the character at p (len 2-4 bytes, valid UTF-8).
  template <class Merge>
  const Entry& get(const MergeTable& table, const unsigned char* p, std::size_t len, Merge& merge) {
    const std::uint32_t code = char_code(p, len);
    if (slots_.empty() || table_ != &table) {
      slots_.assign(kSlots, Entry{});
      table_ = &table;
    }
    Entry& e = slots_[(code * 0x9E3779B1u) >> (32 - kBits)];
    if (e.code != code) fill(table, p, len, code, e, merge);
    return e;
  }
  // n zeroed flags (reused from piece to piece).
  std::uint8_t* flags(std::size_t n) {
    if (flags_.size() < n) flags_.resize(n);
    std::fill(flags_.begin(), flags_.begin() + static_cast<std::ptrdiff_t>(n), 0);
    return flags_.data();
  }

 private:
  static constexpr unsigned kBits = 11;
  static constexpr std::size_t kSlots = std::size_t{1} << kBits;
  template <class Merge>
  void fill(const MergeTable& table, const unsigned char* p, std::size_t len, std::uint32_t code,
            Entry& e, Merge& merge);
  std::vector<Entry> slots_;
  const MergeTable* table_ = nullptr;
  std::vector<std::uint8_t> flags_;
  std::vector<TokenId> merged_;
};

// The character's bytes merged alone. One token T: condition (1) holds when
// merges ranked up to T's own rank still make T (the merge loop takes the
// lowest pair first, so a merge ranked above T would be left undone), and
// (2) when MergeTable::outranked_char says so. Several tokens: they never
// merge across the character's clean boundaries, so both hold vacuously.
template <class Merge>
void CharCache::fill(const MergeTable& table, const unsigned char* p, std::size_t len,
                     std::uint32_t code, Entry& e, Merge& merge) {
  const std::string_view bytes(reinterpret_cast<const char*>(p), len);
  merged_.clear();
  merge(bytes, kNoRank, merged_);
  e.code = code;
  e.ok = 0;
  e.n = 0;
  std::size_t at = 0;
  for (TokenId id : merged_) {
    if (e.n == 4) return;  // not one token a byte at most: never starts merged
    e.tokens[e.n] = id;
    e.offset[e.n++] = static_cast<std::uint8_t>(at);
    at += table.bytes(id).size();
  }
  if (at != len) return;  // a byte with no token (dropped): stays bytes
  if (e.n > 1) {
    e.ok = 1;
    return;
  }
  const TokenId t = e.tokens[0];
  merged_.clear();
  merge(bytes, table.rank_of(t) + 1, merged_);
  e.ok = merged_.size() == 1 && merged_[0] == t && !table.outranked_char(code);
}

// Calls emit(start, id) for each initial symbol of piece, in order: a
// character that may start merged as its tokens, every other byte as its
// byte token. Returns whether any character started merged (false: the
// symbols are exactly the piece's bytes). Only for table.chars_usable().
// merge: as for CharCache::get.
template <class Emit, class Merge>
bool emit_char_symbols(const MergeTable& table, std::string_view piece, CharCache& cache,
                       Emit&& emit, Merge&& merge) {
  const auto* b = reinterpret_cast<const unsigned char*>(piece.data());
  const std::size_t n = piece.size();
  bool merged = false;
  std::uint8_t* unclean = cache.flags(n + 1);
  table.mark_unclean(piece, unclean);
  for (std::size_t i = 0; i < n;) {
    std::size_t len = b[i] < 0xC0 ? 1 : utf8::valid_char_length(piece.substr(i));
    if (len < 2) {
      emit(i, table.byte_token(b[i]));
      ++i;
      continue;
    }
    const std::size_t end = i + len;
    // The boundary after the character: the piece's end, or a byte that
    // starts something (a stray continuation byte after it is no boundary the
    // trie's tokens are marked at).
    bool right = end == n || (!utf8::is_continuation(b[end]) && !unclean[end]);
    if (!unclean[i] && right) {
      const CharCache::Entry& e = cache.get(table, b + i, len, merge);
      if (e.ok) {
        for (std::size_t k = 0; k < e.n; ++k) emit(i + e.offset[k], e.tokens[k]);
        merged = true;
        i = end;
        continue;
      }
    }
    for (std::size_t k = i; k < end; ++k) emit(k, table.byte_token(b[k]));
    i = end;
  }
  return merged;
}

}  // namespace tok::bpe
