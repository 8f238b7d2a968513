#include "bpe/long_piece.hpp"

#include <algorithm>

#include "bpe/rank_queue.hpp"
#include "bpe/symbol_lookup.hpp"
#include "core/utf8.hpp"

namespace tok::bpe {

namespace {

// The symbols of a piece, one word per byte: a 2-bit tag and a 30-bit value.
//   kSingle at s: a one-byte symbol [s, s+1); the value is its id.
//   kStart at s:  a symbol [s, e) of two or more bytes; the value is e, and
//                 the word at s+1 is kId with its id.
//   kBack at e-1: the last byte of a symbol of three or more bytes; the value
//                 is its start. Also marks a start that merged away.
// A word at a symbol's inner bytes is never kSingle or kStart, so a pending
// pair's offset is checked for life by its tag alone.
class Symbols {
 public:
  static constexpr std::uint32_t kLimit = (1u << 30) - 1;  // values are below this
  static constexpr std::uint32_t kNoId = kLimit;           // kNoToken, packed

  Symbols(const MergeTable& table, std::string_view piece);

  bool live(std::uint32_t s) const { return tag(w_[s]) <= kStart; }
  std::uint32_t next(std::uint32_t s) const { return tag(w_[s]) == kSingle ? s + 1 : value(w_[s]); }
  TokenId id(std::uint32_t s) const {
    std::uint32_t v = value(tag(w_[s]) == kSingle ? w_[s] : w_[s + 1]);
    return v == kNoId ? kNoToken : v;
  }
  // The symbol before s (s > 0).
  std::uint32_t prev(std::uint32_t s) const {
    std::uint32_t w = w_[s - 1];
    if (tag(w) == kSingle) return s - 1;
    return tag(w) == kId ? s - 2 : value(w);
  }
  // Joins [s, m) and [m, e) into one symbol with the given id.
  void merge(std::uint32_t s, std::uint32_t m, std::uint32_t e, TokenId id) {
    w_[m] = word(kBack, s);
    w_[s] = word(kStart, e);
    w_[s + 1] = word(kId, id);  // id < kLimit: the caller checked the table's size
    if (e - s >= 3) w_[e - 1] = word(kBack, s);
  }

 private:
  enum Tag : std::uint32_t { kSingle = 0, kStart = 1, kId = 2, kBack = 3 };
  static std::uint32_t tag(std::uint32_t w) { return w >> 30; }
  static std::uint32_t value(std::uint32_t w) { return w & kLimit; }
  static std::uint32_t word(Tag t, std::uint32_t v) { return (t << 30) | v; }
  static std::uint32_t packed(TokenId id) { return id == kNoToken ? kNoId : id; }
  void set_char(std::uint32_t s, std::uint32_t len, TokenId id);

  std::vector<std::uint32_t> w_;  // (piece bytes)
};

// A symbol of `len` bytes at s (the initial symbols of SentencePiece-style
// vocabularies are characters).
void Symbols::set_char(std::uint32_t s, std::uint32_t len, TokenId id) {
  if (len == 1) {
    w_[s] = word(kSingle, packed(id));
    return;
  }
  w_[s] = word(kStart, s + len);
  w_[s + 1] = word(kId, packed(id));
  for (std::uint32_t k = 2; k < len; ++k) w_[s + k] = word(kBack, s);
}

// The initial symbols, as the encoder's merge loop makes them: one per byte
// (byte-level), or one per UTF-8 character that is a token and one per byte
// of the others (byte fallback).
Symbols::Symbols(const MergeTable& table, std::string_view piece) : w_(piece.size()) {
  const auto* p = reinterpret_cast<const unsigned char*>(piece.data());
  const std::uint32_t n = static_cast<std::uint32_t>(piece.size());
  if (table.options().initial == InitialSymbols::kBytes) {
    TokenId ids[256];
    for (int b = 0; b < 256; ++b) ids[b] = lone_byte(table, static_cast<unsigned char>(b));
    for (std::uint32_t i = 0; i < n; ++i) w_[i] = word(kSingle, packed(ids[p[i]]));
    return;
  }
  for (std::uint32_t i = 0; i < n;) {
    auto len = static_cast<std::uint32_t>(utf8::symbol_length(piece.substr(i)));
    TokenId id = table.find(piece.substr(i, len));
    if (id != kNoToken) {
      set_char(i, len, id);
    } else {
      for (std::uint32_t k = 0; k < len; ++k) set_char(i + k, 1, lone_byte(table, p[i + k]));
    }
    i += len;
  }
}

}  // namespace

bool merge_long_piece(const MergeTable& table, std::string_view piece, std::uint32_t max_rank,
                      std::vector<TokenId>& out, PairCache& cache) {
  if (piece.size() < kLongPieceBytes || piece.size() >= Symbols::kLimit ||
      table.size() >= Symbols::kLimit) {
    return false;
  }
  const auto n = static_cast<std::uint32_t>(piece.size());
  Symbols sym(table, piece);
  // The pair that starts at live symbol s, if it may merge.
  auto pair_at = [&](std::uint32_t s) -> PairInfo {
    std::uint32_t r = sym.next(s);
    if (r >= n) return {};
    std::uint32_t e = sym.next(r);
    PairInfo pi = cached_pair(table, cache, sym.id(s), sym.id(r), piece.substr(s, e - s));
    return pi.rank < max_rank ? pi : PairInfo{};
  };
  RankQueue queue;
  for (std::uint32_t s = 0; s < n; s = sym.next(s)) {
    std::uint32_t rank = pair_at(s).rank;
    if (rank != kNoRank) queue.push(rank, s);
  }
  // Pairs of the rank being swept that merges made to the left of the sweep:
  // each is left of everything still in the bucket, the top leftmost.
  std::vector<std::uint32_t> left_of_sweep;
  while (!queue.empty()) {
    const std::uint32_t rank = queue.take_min();
    left_of_sweep.clear();
    for (;;) {
      std::uint32_t s;
      if (!left_of_sweep.empty()) {
        s = left_of_sweep.back();
        left_of_sweep.pop_back();
      } else if (!queue.pop(&s)) {
        break;
      }
      if (!sym.live(s)) continue;
      PairInfo pi = pair_at(s);
      if (pi.rank != rank) continue;  // stale: the pair changed since it was queued
      std::uint32_t m = sym.next(s);
      sym.merge(s, m, sym.next(m), pi.result);
      // The two pairs the merge changed: (s, its new next) and (prev, s),
      // pushed in that order so the leftmost is on top.
      for (int k = 0; k < 2; ++k) {
        if (k == 1 && s == 0) break;
        std::uint32_t at = k == 0 ? s : sym.prev(s);
        std::uint32_t r = pair_at(at).rank;
        if (r == rank) {
          left_of_sweep.push_back(at);
        } else if (r != kNoRank) {
          queue.push(r, at);
        }
      }
      if (queue.min_rank() < rank) {
        // A merge made a pair of a lower rank (vocabularies need not rank a
        // token after its parts): it goes first; this sweep resumes later.
        for (std::uint32_t at : left_of_sweep) queue.push(rank, at);
        break;
      }
    }
    queue.release();
  }
  for (std::uint32_t s = 0; s < n; s = sym.next(s)) {
    if (sym.id(s) != kNoToken) out.push_back(sym.id(s));
  }
  return true;
}

}  // namespace tok::bpe
