#include "bpe/encoder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "bpe/long_piece.hpp"
#include "bpe/symbol_lookup.hpp"
#include "core/utf8.hpp"

namespace tok::bpe {

namespace {
std::string piece_too_long_message(std::size_t bytes) {
  return fmt::format(
      "a piece of {} bytes with no pre-tokenizer boundary (one run of a single character "
      "class); tok encodes pieces of at most {} MiB",
      bytes, kMaxPieceBytes >> 20);
}
}  // namespace

PieceTooLong::PieceTooLong(std::size_t bytes)
    : std::runtime_error(piece_too_long_message(bytes)), bytes_(bytes) {}

Status check_piece_size(std::string_view piece) {
  if (piece.size() <= kMaxPieceBytes) return {};
  return Error{piece_too_long_message(piece.size())};
}

namespace {

// Shorter cold pieces are merged whole: two 3-byte characters at least.
constexpr std::size_t kMinCutBytes = 6;

// Pieces of at most this many symbols take merge_small (64 measured no
// faster on the encode benchmark's mix).
constexpr std::uint32_t kSmallPiece = 32;

// Does piece hold a multi-byte character's lead byte?
bool has_lead_byte(std::string_view piece) {
  for (char c : piece) {
    if (static_cast<unsigned char>(c) >= 0xC0) return true;
  }
  return false;
}

// Fills scratch.symbols with the initial symbols of piece plus a sentinel.
// With every merge allowed (max_rank kNoRank), the multi-byte characters of
// a piece of kMinCharSymbolBytes or more may start merged (char_symbols.hpp).
void initial_symbols(const MergeTable& table, std::string_view piece, std::uint32_t max_rank,
                     EncodeScratch& s) {
  auto& syms = s.symbols;
  syms.clear();
  const auto* p = reinterpret_cast<const unsigned char*>(piece.data());
  std::size_t n = piece.size();
  s.byte_symbols = table.options().initial == InitialSymbols::kBytes;
  if (s.byte_symbols && s.char_symbols && max_rank == kNoRank && n >= kMinCharSymbolBytes &&
      table.chars_usable() && has_lead_byte(piece)) {
    // Built beside syms, which a character's first merge uses (CharCache
    // asks merge_symbols for its tokens).
    auto& built = s.char_built;
    built.clear();
    auto merge = [&](std::string_view bytes, std::uint32_t cap, std::vector<TokenId>& out) {
      merge_symbols(table, bytes, cap, false, out, s);
    };
    const bool merged = emit_char_symbols(
        table, piece, s.chars,
        [&](std::size_t at, TokenId id) {
          built.push_back({static_cast<std::uint32_t>(at), id});
        },
        merge);
    built.emplace_back();
    syms.swap(built);
    s.byte_symbols = !merged;
  } else if (s.byte_symbols) {
    syms.resize(n + 1);
    for (std::size_t i = 0; i < n; ++i) {
      syms[i] = {static_cast<std::uint32_t>(i), lone_byte(table, p[i])};
    }
  } else {
    for (std::size_t i = 0; i < n;) {
      std::size_t len = utf8::symbol_length(piece.substr(i));
      TokenId id = table.find(piece.substr(i, len));
      if (id != kNoToken) {
        syms.push_back({static_cast<std::uint32_t>(i), id});
      } else {
        for (std::size_t k = 0; k < len; ++k) {
          syms.push_back({static_cast<std::uint32_t>(i + k), lone_byte(table, p[i + k])});
        }
      }
      i += len;
    }
    syms.emplace_back();
  }
  syms.back() = {static_cast<std::uint32_t>(n), kNoToken};
}

// Linear merge for pieces of more than kSmallPiece and fewer than
// kHeapThreshold symbols: the lowest-priority pair, leftmost on ties, is the
// minimum of (rank, position) packed in one word. Merged-away symbols stay
// in place, unlinked (no erase moves the arrays), and each block of 8
// positions keeps its minimum, so a merge rescans the blocks it touched and
// the block minima, not every pair.
void merge_linear(const MergeTable& table, std::string_view piece, std::uint32_t max_rank,
                  EncodeScratch& s) {
  constexpr std::uint64_t kNone = ~std::uint64_t{0};
  auto& syms = s.symbols;
  const std::uint32_t n = static_cast<std::uint32_t>(syms.size() - 1);  // < kHeapThreshold
  std::uint64_t key[kHeapThreshold];  // rank << 32 | position, kNone: no pair
  TokenId result[kHeapThreshold];
  std::uint32_t next[kHeapThreshold];  // next live symbol (n: the sentinel)
  std::uint32_t prev[kHeapThreshold];  // previous live symbol (UINT32_MAX: none)
  std::uint64_t block_min[kHeapThreshold / 8];
  const std::uint32_t blocks = (n + 7) / 8;
  // The bytes of the pair starting at live symbol i (its next is live too).
  auto joined = [&](std::uint32_t i) {
    std::uint32_t a = syms[i].start, b = syms[next[next[i]]].start;
    return piece.substr(a, b - a);
  };
  auto set_pair = [&](std::uint32_t i) {
    key[i] = kNone;
    if (next[i] >= n) return;
    PairInfo pi = cached_pair(table, s.pair_cache, syms[i].id, syms[next[i]].id, joined(i));
    if (pi.rank >= max_rank) return;
    key[i] = (std::uint64_t{pi.rank} << 32) | i;
    result[i] = pi.result;
  };
  // Starts loading what set_pair(i) will read, unless the pair cache already
  // knows: lookups that do not depend on each other then wait on memory
  // together instead of one after another.
  auto prefetch_pair = [&](std::uint32_t i) {
    if (next[i] >= n) return;
    PairInfo known;
    if (s.pair_cache.find(PairCache::key(syms[i].id, syms[next[i]].id), &known)) return;
    table.prefetch_pair(hash_bytes(joined(i)));
  };
  auto scan_block = [&](std::uint32_t b) {
    std::uint64_t m = kNone;
    for (std::uint32_t i = 8 * b, e = std::min(n, 8 * b + 8); i < e; ++i)
      m = key[i] < m ? key[i] : m;
    block_min[b] = m;
  };
  for (std::uint32_t i = 0; i < n; ++i) {
    next[i] = i + 1;
    prev[i] = i == 0 ? UINT32_MAX : i - 1;
  }
  if (table.byte_pairs() && s.byte_symbols) {
    // Byte symbols: every first pair is two bytes of the piece (see merge_small).
    const auto* p = reinterpret_cast<const unsigned char*>(piece.data());
    for (std::uint32_t i = 0; i < n; ++i) {
      key[i] = kNone;
      if (i + 1 == n) break;
      PairInfo pi = table.byte_pair(p + i);
      if (pi.rank >= max_rank) continue;
      key[i] = (std::uint64_t{pi.rank} << 32) | i;
      result[i] = pi.result;
    }
  } else {
    for (std::uint32_t i = 0; i + 1 < n; ++i) {
      s.pair_cache.prefetch(PairCache::key(syms[i].id, syms[i + 1].id));
    }
    for (std::uint32_t i = 0; i + 1 < n; ++i) prefetch_pair(i);
    for (std::uint32_t i = 0; i < n; ++i) set_pair(i);
  }
  for (std::uint32_t b = 0; b < blocks; ++b) scan_block(b);
  for (;;) {
    // A compare and a conditional move per block: a branch on each
    // comparison would mispredict about half the time.
    std::uint64_t best = kNone;
    for (std::uint32_t b = 0; b < blocks; ++b) best = block_min[b] < best ? block_min[b] : best;
    if (best == kNone) break;
    std::uint32_t at = static_cast<std::uint32_t>(best & 0xffffffffu);
    std::uint32_t gone = next[at];
    syms[at].id = result[at];
    key[gone] = kNone;
    next[at] = next[gone];
    if (next[at] < n) prev[next[at]] = at;
    std::uint32_t before = prev[at];
    prefetch_pair(at);
    if (before != UINT32_MAX) prefetch_pair(before);
    set_pair(at);
    if (before != UINT32_MAX) set_pair(before);
    scan_block(at / 8);
    if (gone / 8 != at / 8) scan_block(gone / 8);
    if (before != UINT32_MAX && before / 8 != at / 8) scan_block(before / 8);
  }
  // Compact the surviving symbols (symbol 0 always survives: merges keep the left).
  std::uint32_t w = 0;
  for (std::uint32_t i = 0; i < n; i = next[i]) syms[w++] = syms[i];
  syms[w] = {static_cast<std::uint32_t>(piece.size()), kNoToken};
  syms.resize(w + 1);
}

// The merge for short pieces (most cold pieces: a rare word, an
// identifier, a run of kana), in the compact arrays of tiktoken's loop: a
// merge shifts the symbols after it down, the lowest pair is a scan of at
// most 31 ranks. Each round of pair questions (all pairs at the start, the
// two around a merge after it) asks the pair cache first and then the
// table for every miss, their filter words and index slots loaded together,
// each joined byte string hashed once.
void merge_small(const MergeTable& table, std::string_view piece, std::uint32_t max_rank,
                 EncodeScratch& s) {
  auto& syms = s.symbols;
  std::uint32_t m = static_cast<std::uint32_t>(syms.size() - 1);  // <= kSmallPiece
  // Symbol i and the pair it starts (with symbol i + 1), moved together by
  // a merge; the entry after the last symbol holds the piece's end.
  struct Entry {
    std::uint32_t start;
    TokenId id;
    std::uint32_t rank;  // kNoRank: no merge (or none below max_rank)
    TokenId result;
  };
  Entry e[kSmallPiece + 1];
  for (std::uint32_t i = 0; i < m; ++i) e[i] = {syms[i].start, syms[i].id, kNoRank, kNoToken};
  e[m].start = static_cast<std::uint32_t>(piece.size());
  const TokenId unk = table.options().unk;
  const bool batched = table.ranked() && table.pairs_by_id();
  auto joined = [&](std::uint32_t i) {
    return piece.substr(e[i].start, e[i + 2].start - e[i].start);
  };
  auto set = [&](std::uint32_t i, PairInfo pi) {
    e[i].rank = pi.rank < max_rank ? pi.rank : kNoRank;
    e[i].result = pi.result;
  };
  // The answers for pairs q[0..nq) (pair i: symbols i and i + 1).
  auto ask = [&](const std::uint32_t* q, std::uint32_t nq) {
    std::uint32_t miss[kSmallPiece];
    std::uint64_t miss_hash[kSmallPiece];
    std::uint32_t misses = 0;
    for (std::uint32_t j = 0; j < nq; ++j) {
      std::uint32_t i = q[j];
      TokenId a = e[i].id, b = e[i + 1].id;
      if (!batched || a == kNoToken || b == kNoToken || a == unk || b == unk) {
        set(i, cached_pair(table, s.pair_cache, a, b, joined(i)));
        continue;
      }
      PairInfo pi;
      if (s.pair_cache.find(PairCache::key(a, b), &pi)) {
        set(i, pi);
        continue;
      }
      std::uint64_t h = hash_bytes(joined(i));
      table.prefetch_pair(h);
      miss[misses] = i;
      miss_hash[misses++] = h;
    }
    for (std::uint32_t j = 0; j < misses; ++j) {
      std::uint32_t i = miss[j];
      PairInfo pi = table.ranked_pair(joined(i), miss_hash[j]);
      s.pair_cache.insert(PairCache::key(e[i].id, e[i + 1].id), pi);
      set(i, pi);
    }
  };
  std::uint32_t q[kSmallPiece];
  if (table.byte_pairs() && s.byte_symbols) {
    // Byte symbols: every first-round pair is two bytes of the piece.
    const auto* p = reinterpret_cast<const unsigned char*>(piece.data());
    for (std::uint32_t i = 0; i + 1 < m; ++i) set(i, table.byte_pair(p + i));
  } else {
    for (std::uint32_t i = 0; i + 1 < m; ++i) q[i] = i;
    if (m > 1) ask(q, m - 1);
  }
  while (m > 1) {
    // The lowest rank, leftmost on ties: the minimum of rank << 32 | position,
    // a conditional move a pair (a branch would mispredict half the time).
    std::uint64_t best = ~std::uint64_t{0};
    for (std::uint32_t i = 0; i + 1 < m; ++i) {
      std::uint64_t k = (std::uint64_t{e[i].rank} << 32) | i;
      best = k < best ? k : best;
    }
    if ((best >> 32) == kNoRank) break;
    std::uint32_t at = static_cast<std::uint32_t>(best);
    e[at].id = e[at].result;
    // Symbol at + 1 is gone: what follows it moves down one place.
    for (std::uint32_t j = at + 1; j < m; ++j) e[j] = e[j + 1];
    --m;
    std::uint32_t nq = 0;
    if (at > 0) q[nq++] = at - 1;
    if (at + 1 < m) q[nq++] = at;
    ask(q, nq);
  }
  for (std::uint32_t i = 0; i < m; ++i) syms[i] = {e[i].start, e[i].id};
  syms[m] = {static_cast<std::uint32_t>(piece.size()), kNoToken};
  syms.resize(m + 1);
}

// Heap with lazy invalidation over a doubly linked list of symbols, in
// compact per-symbol state (the piece may be kMaxPieceBytes long): 8 bytes of
// symbol, 12 of links and 16 per heap entry, the heap kept under about two
// entries per live symbol. A node's version changes whenever the pair it
// starts (itself and its next symbol) changes: it merged, died, or its next
// symbol merged. An entry is current exactly when its version still matches.
void merge_heap(const MergeTable& table, std::string_view piece, std::uint32_t max_rank,
                EncodeScratch& s) {
  constexpr std::uint32_t kNone = UINT32_MAX;
  auto& syms = s.symbols;
  const std::uint32_t n = static_cast<std::uint32_t>(syms.size() - 1);
  struct Link {
    std::uint32_t prev, next;  // kNone: none
    std::uint32_t version;
  };
  std::vector<Link> links(n);
  for (std::uint32_t i = 0; i < n; ++i)
    links[i] = {i == 0 ? kNone : i - 1, i + 1 < n ? i + 1 : kNone, 0};
  struct Entry {
    std::uint32_t rank, left, version;
    TokenId result;
    // std::push_heap keeps the greatest on top: the lowest rank, leftmost on ties.
    bool operator<(const Entry& o) const { return rank != o.rank ? rank > o.rank : left > o.left; }
  };
  std::vector<Entry> heap;
  heap.reserve(n);
  std::uint32_t live = n;
  auto push = [&](std::uint32_t l) {
    std::uint32_t r = links[l].next;
    if (r == kNone) return;
    std::uint32_t a = syms[l].start;
    std::uint32_t b = links[r].next == kNone ? static_cast<std::uint32_t>(piece.size())
                                             : syms[links[r].next].start;
    PairInfo pi = cached_pair(table, s.pair_cache, syms[l].id, syms[r].id, piece.substr(a, b - a));
    if (pi.rank >= max_rank) return;
    heap.push_back({pi.rank, l, links[l].version, pi.result});
    std::push_heap(heap.begin(), heap.end());
  };
  for (std::uint32_t i = 0; i + 1 < n; ++i) {
    std::uint32_t a = syms[i].start, b = syms[i + 2].start;
    PairInfo pi =
        cached_pair(table, s.pair_cache, syms[i].id, syms[i + 1].id, piece.substr(a, b - a));
    if (pi.rank < max_rank) heap.push_back({pi.rank, i, 0, pi.result});
  }
  std::make_heap(heap.begin(), heap.end());
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end());
    Entry e = heap.back();
    heap.pop_back();
    Link& l = links[e.left];
    if (l.version != e.version) continue;
    std::uint32_t r = l.next;
    syms[e.left].id = e.result;
    ++l.version;
    ++links[r].version;  // dead: its entries are stale
    l.next = links[r].next;
    if (l.next != kNone) links[l.next].prev = e.left;
    --live;
    if (l.prev != kNone) {
      ++links[l.prev].version;  // its next symbol changed
      push(l.prev);
    }
    push(e.left);
    // Stale entries pile up on long runs of one letter: drop them once they
    // outnumber the live symbols, so the heap stays O(live).
    if (heap.size() > 2 * std::size_t{live} + 64) {
      std::erase_if(heap, [&](const Entry& x) { return links[x.left].version != x.version; });
      std::make_heap(heap.begin(), heap.end());
    }
  }
  // Compact the surviving symbols (node 0 always survives: merges keep the left).
  std::size_t w = 0;
  for (std::uint32_t i = 0; i != kNone; i = links[i].next) syms[w++] = syms[i];
  syms[w] = {static_cast<std::uint32_t>(piece.size()), kNoToken};
  syms.resize(w + 1);
}

}  // namespace

void merge_symbols(const MergeTable& table, std::string_view piece, std::uint32_t max_rank,
                   bool force_heap, std::vector<TokenId>& out, EncodeScratch& s) {
  if (piece.empty()) return;
  if (piece.size() > kMaxPieceBytes) throw PieceTooLong(piece.size());
  if (!force_heap && merge_long_piece(table, piece, max_rank, out, s.pair_cache)) return;
  initial_symbols(table, piece, max_rank, s);
  std::size_t n = s.symbols.size() - 1;
  if (force_heap || n >= kHeapThreshold) {
    merge_heap(table, piece, max_rank, s);
  } else if (n <= kSmallPiece) {
    merge_small(table, piece, max_rank, s);
  } else {
    merge_linear(table, piece, max_rank, s);
  }
  // A byte with no token in a vocabulary without an unknown token stays
  // kNoToken: it is dropped, as Hugging Face tokenizers drops a character it
  // cannot map (never an id outside the vocabulary).
  for (std::size_t i = 0; i + 1 < s.symbols.size(); ++i) {
    if (s.symbols[i].id != kNoToken) out.push_back(s.symbols[i].id);
  }
}

namespace {

// The piece cache's answer: the shared cache's while it takes new pieces,
// then the private cache's too.
const TokenId* find_cached(std::string_view piece, std::uint64_t h, const EncodeScratch& s,
                           std::size_t* n) {
  if (s.shared) {
    if (const TokenId* hit = s.shared->find(piece, h, n)) return hit;
    if (!s.shared_full) return nullptr;
  }
  return s.cache.find(piece, h, n);
}

void remember(std::string_view piece, std::uint64_t h, const TokenId* toks, std::size_t n,
              EncodeScratch& s) {
  if (s.shared && !s.shared_full) {
    if (s.shared->insert(piece, h, toks, n, s.shared_cursor)) return;
    s.shared_full = true;
  }
  s.cache.insert(piece, h, toks, n);
}

const TokenId* lookup_cold(const MergeTable& table, std::string_view piece, std::uint64_t h,
                           EncodeScratch& s, std::size_t* n, bool may_cut = true);

// Does the token `id`, whose bytes are `part`, come out of merging those
// bytes? (Looked up whole, a piece that is a token is that token; a part cut
// from a piece must be what the merges make of it.) Known once per token.
bool merges_to_itself(const MergeTable& table, TokenId id, std::string_view part,
                      EncodeScratch& s) {
  if (s.reach_for != &table) {
    s.reach.assign(table.size(), 0);
    s.reach_for = &table;
  }
  if (id >= s.reach.size()) return false;
  if (!s.reach[id]) {
    s.part_tmp.clear();
    merge_symbols(table, part, kNoRank, false, s.part_tmp, s);
    s.reach[id] = s.part_tmp.size() == 1 && s.part_tmp[0] == id ? 1 : 2;
  }
  return s.reach[id] == 1;
}

// Is a cold piece of kMinCutBytes or more cut before the piece cache is
// asked? A piece that has a cut point is never cached whole, so for one that
// starts with a multi-byte character (a run of CJK, kana, Thai) the cache's
// answer is a miss to memory. One with no cut point goes on to the cache.
bool cut_first(std::string_view piece) {
  return (static_cast<unsigned char>(piece[0]) | static_cast<unsigned char>(piece[1])) >= 0x80;
}

// One part of a piece being cut: where it ends, its hash and bytes (as the
// hot cache compares them), and the hot cache's answer (n == 0: not there).
// Plain words, not a ShortKey: its default member initializers would zero
// every batch's array on every cut piece (a tenth of the first call on CJK).
struct CutPart {
  std::uint32_t end;
  std::uint32_t n;
  std::uint64_t h;
  std::uint64_t k0, k1;  // the ShortKey of parts of up to HotCache::kMaxBytes
  TokenId tokens[HotCache::kMaxTokens];
};

// Parts looked up together: as many as encode_pieces takes pieces.
constexpr std::size_t kPartBatch = kPieceBatch;

// Appends the tokens of parts[0..np) of piece (the first starting at
// `from`) to s.parts_out from place *w on. Every part is hashed, then asked
// of the hot cache once, and the index and piece-cache slots of those it
// misses are loaded together before the first part's tokens are written:
// looked up one after another, the misses waited on one cache miss after
// another (a third of the cold path's time on Chinese, Japanese, Korean,
// Thai and Hindi text).
void cut_parts_tokens(const MergeTable& table, std::string_view piece, std::uint32_t from,
                      CutPart* parts, std::size_t np, EncodeScratch& s, std::size_t* w) {
  const auto* b = reinterpret_cast<const unsigned char*>(piece.data());
  std::uint32_t at = from;
  for (std::size_t i = 0; i < np; ++i) {
    CutPart& c = parts[i];
    std::size_t len = c.end - at;
    if (len <= HotCache::kMaxBytes) {
      ShortKey k = short_key(b + at, len);
      c.k0 = k.k0;
      c.k1 = k.k1;
      c.h = hash_short(k, len);
      s.hot.prefetch(c.h);
    } else {
      c.h = hash_bytes(piece.substr(at, len));
    }
    at = c.end;
  }
  at = from;
  for (std::size_t i = 0; i < np; ++i) {
    CutPart& c = parts[i];
    std::size_t len = c.end - at;
    at = c.end;
    c.n =
        len <= HotCache::kMaxBytes
            ? static_cast<std::uint32_t>(s.hot.find_part(ShortKey{c.k0, c.k1}, len, c.h, c.tokens))
            : 0;
    if (c.n) continue;
    if (table.options().whole_piece_lookup) table.prefetch_pair(c.h);
    if (s.shared) {
      s.shared->prefetch(c.h);
    } else {
      s.cache.prefetch(c.h);
    }
  }
  at = from;
  for (std::size_t i = 0; i < np; ++i) {
    const CutPart& c = parts[i];
    std::string_view part = piece.substr(at, c.end - at);
    at = c.end;
    std::size_t k = c.n;
    const TokenId* t = c.tokens;
    if (!k) t = lookup_cold(table, part, c.h, s, &k, false);
    // A part that is a token whole must still be what the merges make of it
    // (a hot answer is: HotCache::find_part). A token that is not stays in
    // the hot cache marked unchecked, as the answer for a piece of its bytes.
    if (!c.n && k == 1 && table.options().whole_piece_lookup &&
        !merges_to_itself(table, t[0], part, s)) {
      s.hot.insert(part, c.h, t, 1, true);
      s.part_tmp.clear();
      merge_symbols(table, part, kNoRank, false, s.part_tmp, s);
      t = s.part_tmp.data();
      k = s.part_tmp.size();
    }
    // A hot answer is copied whole (kMaxTokens places).
    auto& out = s.parts_out;
    if (*w + k + HotCache::kMaxTokens > out.size()) {
      out.resize(std::max(2 * out.size(), *w + k + HotCache::kMaxTokens));
    }
    if (t == c.tokens) {
      std::memcpy(out.data() + *w, c.tokens, sizeof(c.tokens));
    } else if (k) {
      std::memcpy(out.data() + *w, t, k * sizeof(TokenId));
    }
    *w += k;
  }
}

// The tokens of a cold piece cut at every point no token can span
// (piece_cuts.hpp), each part through the caches; nullptr when it has no such
// point. Runs of CJK and kana, one piece each, mostly fall into a few
// thousand distinct parts, most of them answered by the hot cache. The parts
// go to the caches kPartBatch at a time, so the state kept for them is
// bounded whatever the piece's size.
const TokenId* lookup_cut(const MergeTable& table, std::string_view piece, EncodeScratch& s,
                          std::size_t* n) {
  if (!table.cuts_usable()) return nullptr;
  CutPart parts[kPartBatch];
  std::size_t np = 0, w = 0;
  std::uint32_t from = 0;  // where parts[0] starts
  auto at_point = [&](std::size_t p) {
    if (!table.safe_cut(piece, p)) return;
    parts[np++].end = static_cast<std::uint32_t>(p);
    if (np < kPartBatch) return;
    cut_parts_tokens(table, piece, from, parts, np, s, &w);
    from = parts[np - 1].end;
    np = 0;
  };
  cuts::for_each_candidate(reinterpret_cast<const unsigned char*>(piece.data()), piece.size(),
                           at_point);
  if (from == 0 && np == 0) return nullptr;
  parts[np++].end = static_cast<std::uint32_t>(piece.size());
  cut_parts_tokens(table, piece, from, parts, np, s, &w);
  *n = w;
  return s.parts_out.data();
}

// The tokens of a piece that the hot cache did not answer (h is its hash):
// whole-piece lookup, piece cache, cutting it (may_cut), and only then the
// merge loop. Returns a pointer to *n tokens valid until the next call with
// this scratch.
const TokenId* lookup_cold(const MergeTable& table, std::string_view piece, std::uint64_t h,
                           EncodeScratch& s, std::size_t* n, bool may_cut) {
  bool short_piece = piece.size() <= HotCache::kMaxBytes;
  if (table.options().whole_piece_lookup) {
    TokenId whole = table.find_filtered(piece, h);
    if (whole != kNoToken) {
      s.hot_out[0] = whole;
      // A part's caller checks its answer (cut_parts_tokens).
      if (short_piece) s.hot.insert(piece, h, s.hot_out, 1, may_cut);
      *n = 1;
      return s.hot_out;
    }
  }
  const bool cuttable = may_cut && piece.size() >= kMinCutBytes;
  // Refused whether or not it could be cut, as the stream readers refuse it.
  if (cuttable && piece.size() > kMaxPieceBytes) throw PieceTooLong(piece.size());
  // Not cached whole: such a piece seldom comes again, and its parts do.
  const bool first = cuttable && cut_first(piece);
  if (first) {
    if (const TokenId* parts = lookup_cut(table, piece, s, n)) return parts;
  }
  if (const TokenId* hit = find_cached(piece, h, s, n)) {
    if (short_piece) s.hot.insert(piece, h, hit, *n);
    return hit;
  }
  if (cuttable && !first) {
    if (const TokenId* parts = lookup_cut(table, piece, s, n)) return parts;
  }
  s.tmp.clear();
  merge_symbols(table, piece, kNoRank, false, s.tmp, s);
  *n = s.tmp.size();
  if (s.tmp.empty()) return s.tmp.data();  // every byte dropped: nothing worth caching
  remember(piece, h, s.tmp.data(), s.tmp.size(), s);
  if (short_piece) s.hot.insert(piece, h, s.tmp.data(), s.tmp.size());
  return s.tmp.data();
}

// Appends n tokens; one token (most pieces) without the range insert's setup.
void append_tokens(std::vector<TokenId>& out, const TokenId* toks, std::size_t n) {
  if (n == 1) {
    out.push_back(toks[0]);
  } else {
    out.insert(out.end(), toks, toks + n);
  }
}

// The tokens of a piece through all the caches.
const TokenId* lookup_piece(const MergeTable& table, std::string_view piece, EncodeScratch& s,
                            std::size_t* n) {
  std::uint64_t h = hash_bytes(piece);
  if (piece.size() <= HotCache::kMaxBytes) {
    if ((*n = s.hot.find(piece, h, s.hot_out))) return s.hot_out;
  }
  return lookup_cold(table, piece, h, s, n);
}

}  // namespace

void encode_piece(const MergeTable& table, std::string_view piece, std::vector<TokenId>& out,
                  EncodeScratch& s) {
  if (piece.empty()) return;
  std::size_t n = 0;
  const TokenId* toks = lookup_piece(table, piece, s, &n);
  append_tokens(out, toks, n);
}

std::size_t count_piece(const MergeTable& table, std::string_view piece, EncodeScratch& s) {
  if (piece.empty()) return 0;
  std::size_t n = 0;
  lookup_piece(table, piece, s, &n);
  return n;
}

void encode_pieces(const MergeTable& table, const std::string_view* pieces, std::size_t n,
                   std::vector<TokenId>* out, std::size_t* count, EncodeScratch& s) {
  TOK_ASSERT(n <= kPieceBatch);
  // Stage 1: hash every piece and start loading its hot-cache slot (or, for a
  // long piece, its index slot).
  // A short piece is loaded once, as the ShortKey that both its hash and
  // the hot cache's comparison use.
  // (Two plain word arrays, not ShortKey[]: its default member initializers
  // had every call zero 256 bytes, 1% of an encode.)
  std::uint64_t h[kPieceBatch], k0[kPieceBatch], k1[kPieceBatch];
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t len = pieces[i].size();
    if (len - 1 < HotCache::kMaxBytes) {  // 1..kMaxBytes
      ShortKey k = short_key(reinterpret_cast<const unsigned char*>(pieces[i].data()), len);
      k0[i] = k.k0;
      k1[i] = k.k1;
      h[i] = hash_short(k, len);
      s.hot.prefetch(h[i]);
    } else {
      h[i] = hash_bytes(pieces[i]);
      table.prefetch(h[i]);
    }
  }
  // Stage 2: the hot cache's answers (copied out: stage 3 may overwrite the
  // slots); for each miss, start loading its index slot.
  TokenId hot[kPieceBatch][HotCache::kMaxTokens];
  std::size_t nhot[kPieceBatch];
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t len = pieces[i].size();
    nhot[i] =
        len - 1 < HotCache::kMaxBytes ? s.hot.find(ShortKey{k0[i], k1[i]}, len, h[i], hot[i]) : 0;
    if (!nhot[i]) {
      table.prefetch_pair(h[i]);
      if (s.shared) {
        s.shared->prefetch(h[i]);
      } else {
        s.cache.prefetch(h[i]);
      }
    }
  }
  // Stage 3: in order, the answers or the cold path. The tokens gather in
  // a local buffer that goes to *out once a batch: appending piece by
  // piece kept the vector's end in memory, a store and a reload a piece.
  constexpr std::size_t kBuf = kPieceBatch * HotCache::kMaxTokens;
  TokenId buf[kBuf];
  std::size_t nb = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (pieces[i].empty()) continue;
    std::size_t k = nhot[i];
    const TokenId* toks = hot[i];
    if (k) {
      if (count) *count += k;
      if (!out) continue;
      if (nb + HotCache::kMaxTokens <= kBuf) {
        std::memcpy(buf + nb, toks, sizeof(hot[i]));  // all kMaxTokens places: a fixed copy
        nb += k;
        continue;
      }
    } else {
      toks = lookup_cold(table, pieces[i], h[i], s, &k);
      if (count) *count += k;
      if (!out) continue;
      if (nb + k <= kBuf) {
        // k == 0 (every byte dropped) may come with a null toks.
        if (k) std::memcpy(buf + nb, toks, k * sizeof(TokenId));
        nb += k;
        continue;
      }
    }
    // Full: what is gathered, then these tokens, straight to *out.
    out->insert(out->end(), buf, buf + nb);
    out->insert(out->end(), toks, toks + k);
    nb = 0;
  }
  if (out) out->insert(out->end(), buf, buf + nb);
}

}  // namespace tok::bpe
