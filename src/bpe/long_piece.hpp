// merge_long_piece: the BPE merge of one long piece (a run with no
// pre-tokenizer boundary: megabytes of one letter, a base64 blob of letters)
// in time linear in its length and about 8 bytes of state per byte.
//
// The result is exactly the encoder's merge loop's (the lowest rank first,
// the leftmost pair on ties; every vocabulary form: tiktoken ranks, merge
// lists, SentencePiece-style scores with byte fallback). How:
//   - symbols live in one 32-bit word per byte of the piece, in place: a
//     symbol's first word gives its end (or, for a one-byte symbol, its id),
//     its second its id, its last points back to its start; so next, previous
//     and id are O(1) without links or per-symbol records;
//   - pending pairs are 4-byte offsets in per-rank buckets (RankQueue);
//     a rank's bucket is swept left to right, and a merge that makes a new
//     pair of the same rank to its left is taken next (a small stack), which
//     is the leftmost-first order; a pair that changed is found stale when
//     popped (its rank is recomputed) instead of being deleted.
// The binary heap it replaces cost O(n log n) and 36 bytes per byte.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "bpe/merge_table.hpp"
#include "bpe/pair_cache.hpp"

namespace tok::bpe {

// Pieces at least this long take merge_long_piece. Shorter ones stay on the
// encoder's own paths, whose state is small for short pieces; the long path
// pays a fixed setup (a chunk pool, a rank map) that only long pieces repay.
// Either path gives the same tokens, so this only moves time.
inline constexpr std::size_t kLongPieceBytes = 4096;

// Appends the tokens of `piece` merged with the pairs of priority below
// max_rank to out, and returns true; returns false (nothing appended) when
// the piece is shorter than kLongPieceBytes, or too long or the table too
// large for its packed words (2^30: far past kMaxPieceBytes and any
// vocabulary), leaving the piece to the encoder's other paths.
bool merge_long_piece(const MergeTable& table, std::string_view piece, std::uint32_t max_rank,
                      std::vector<TokenId>& out, PairCache& cache);

}  // namespace tok::bpe
