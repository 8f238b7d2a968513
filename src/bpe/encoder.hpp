// encode_piece / count_piece: byte-pair encoding of one pre-tokenized piece
// against a MergeTable. Every command's merge runs here (the trainer's and the
// model's tokenizer included); the strategies below are one merge rule
// sized to the piece, not separate tokenizers.
//
// Short pieces (up to 32 symbols: most pieces that reach the merge loop) use
// a linear scan for the lowest pair over compact arrays, as tiktoken does,
// each merge shifting the symbols after it down. Pieces of up to 127 symbols
// scan blocks of 8 pairs that each keep their minimum, on symbols merged in
// place. Longer pieces use a binary heap with lazy invalidation over a
// linked list of symbols. Pieces of kLongPieceBytes and more (a 1 MB run of one
// letter) go to long_piece.hpp: per-rank queues, linear time, about 8 bytes of
// state per input byte. All pick the lowest priority and, on ties, the
// leftmost pair, so they give identical results (tested).
//
// EncodeScratch carries per-call (per-thread) state: symbol buffers and a
// bounded cache of recent multi-token pieces. Never share one across threads;
// threads encoding one text may share a SharedPieceCache through it.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bpe/char_symbols.hpp"
#include "bpe/hot_cache.hpp"
#include "bpe/merge_table.hpp"
#include "bpe/pair_cache.hpp"
#include "bpe/piece_cache.hpp"
#include "bpe/shared_piece_cache.hpp"
#include "core/huge_pages.hpp"
#include "core/result.hpp"

namespace tok::bpe {

struct EncodeScratch {
  struct Symbol {
    std::uint32_t start;  // byte offset of the symbol in the piece
    TokenId id;
  };
  std::vector<Symbol> symbols;  // (n + 1): the last is a sentinel at piece end
  // Whether symbols are the piece's bytes (set with them): the first round
  // of pair questions then reads the table's byte pairs.
  bool byte_symbols = false;
  // Multi-byte characters may start merged (char_symbols.hpp) where the table
  // allows it; false only in tests, for the byte-by-byte reference.
  bool char_symbols = true;
  CharCache chars;
  std::vector<Symbol> char_built;  // a piece's symbols while CharCache may merge
  HotCache hot;
  PieceCache cache;
  // Set by callers that encode one text on several threads: the piece cache
  // their threads share, used instead of `cache` until it is full.
  SharedPieceCache* shared = nullptr;
  SharedPieceCache::InsertCursor shared_cursor;
  bool shared_full = false;
  PairCache pair_cache;
  std::vector<TokenId> tmp;
  TokenId hot_out[HotCache::kMaxTokens];
  // Cutting cold pieces (piece_cuts.hpp). reach[id], for the table
  // reach_for when it has whole_piece_lookup: 0 not known yet, 1 the token's
  // bytes merge to the token, 2 they do not (a part cut from a piece that is
  // such a token must be merged, not looked up whole).
  const MergeTable* reach_for = nullptr;
  std::vector<std::uint8_t, HugePageAllocator<std::uint8_t>> reach;  // (table size)
  // parts_out: a cut piece's tokens (grown as they come, with
  // HotCache::kMaxTokens places to spare).
  std::vector<TokenId> parts_out, part_tmp;

  // Sizes the caches for a text of `bytes` bytes about to be encoded:
  // from kFullCachesText on, at once to the size such a text grows them to
  // (the piece cache's by the text's size), instead of growing them on the
  // way, which drops the hot and pair caches' contents and rehashes the
  // piece cache at every step. Smaller texts keep the small start that keeps
  // a scratch cheap to make. Only ever grows.
  //
  // 32 KiB: a first call on 40-300 KB of Hindi or Korean took 10-15% less
  // time sized at once than grown (level on English prose and code; a text
  // of mostly new pieces refills the dropped caches at every step), and
  // 1 MiB, the threshold before, left such texts growing.
  static constexpr std::size_t kFullCachesText = std::size_t{32} << 10;
  void expect_bytes(std::size_t bytes) {
    if (bytes < kFullCachesText) return;
    hot.reserve_full();
    pair_cache.reserve_full();
    // About one piece cache entry per 192 bytes of text: the 25 MB mix of
    // the encode benchmark keeps 118,000 merged pieces.
    if (!shared) cache.reserve(bytes / 192);
  }
};

// Pieces at least this many symbols long take the heap path.
inline constexpr std::size_t kHeapThreshold = 128;

// The longest piece the encoder takes: a run this long with no pre-tokenizer
// boundary (/dev/zero, megabytes of one letter) is refused instead of costing
// about 40 bytes of merge state per byte. Every shorter piece is encoded
// exactly. Input readers that buffer until a boundary stop at this size too.
inline constexpr std::size_t kMaxPieceBytes = 16u << 20;

// The error for a piece longer than kMaxPieceBytes (ok for any other): what
// Tokenizer's encode, count and encode_spans return for such a piece, and
// what a caller of the free functions below checks first.
Status check_piece_size(std::string_view piece);

// Thrown by the merge loop for a piece longer than kMaxPieceBytes: it has no
// error path, and a check per piece in the batched hot loop would cost more
// than the one `try` per call of Tokenizer's plan, which turns it into
// check_piece_size's Status. So it never leaves the Tokenizer's entry
// points; the free functions below (encode_piece, ...) still throw it.
class PieceTooLong : public std::runtime_error {
 public:
  explicit PieceTooLong(std::size_t bytes);
  std::size_t bytes() const { return bytes_; }

 private:
  std::size_t bytes_;
};

// Appends the tokens of `piece` to out.
void encode_piece(const MergeTable& table, std::string_view piece, std::vector<TokenId>& out,
                  EncodeScratch& scratch);
// Number of tokens encode_piece would append.
std::size_t count_piece(const MergeTable& table, std::string_view piece, EncodeScratch& scratch);

// Encodes pieces[0..n) (n <= kPieceBatch) in order: appends their tokens to
// *out when out is given, adds their number to *count when count is given.
// Exactly encode_piece on each, but memory latency overlaps: every piece's
// hash is computed and its cache slots are prefetched before the first is
// looked up (the hot cache and the merge table's index do not fit in L2, so a
// piece at a time waits on one cache miss after another). 64 pieces: with 16,
// a slot prefetched in the first stage was often still on its way when the
// second read it (first call on the mix 4-8% slower; 128 gains nothing more).
inline constexpr std::size_t kPieceBatch = 64;
void encode_pieces(const MergeTable& table, const std::string_view* pieces, std::size_t n,
                   std::vector<TokenId>* out, std::size_t* count, EncodeScratch& scratch);

// The merge loop alone, uncached: the symbols of `piece` merged with only the
// pairs whose priority is below max_rank. Exposed for tests (linear vs heap)
// and for deriving merge lists from ranked vocabularies.
void merge_symbols(const MergeTable& table, std::string_view piece, std::uint32_t max_rank,
                   bool force_heap, std::vector<TokenId>& out, EncodeScratch& scratch);

}  // namespace tok::bpe
