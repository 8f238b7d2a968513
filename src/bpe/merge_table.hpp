// MergeTable: the one artifact every part of tok shares. The trainer writes it,
// the encoder, the decoder and the model runtime read it.
//
// It holds the bytes of every token id, an index from bytes to id, and the
// merge priorities that drive BPE. Two equivalent ways of stating priorities:
//   - ranked (tiktoken, SentencePiece scores): two adjacent symbols may merge
//     when their concatenated bytes are a token t; the merge's priority is
//     priority(t) (tiktoken: the rank, which is the id).
//   - merge list (Hugging Face, GGUF gpt2): only the listed pairs (left, right)
//     merge, with priority = position in the list.
// The encoder asks one question, pair(a, b) -> {priority, result}, and the
// table answers it from whichever form it holds. Immutable after build.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bpe/hash.hpp"
#include "bpe/piece_cuts.hpp"
#include "bpe/table_array.hpp"
#include "core/result.hpp"

namespace tok::bpe {

using TokenId = std::uint32_t;
inline constexpr TokenId kNoToken = UINT32_MAX;
inline constexpr std::uint32_t kNoRank = UINT32_MAX;

// How a piece becomes the initial symbols that merges then combine.
enum class InitialSymbols : std::uint8_t {
  kBytes,              // byte-level BPE: one symbol per byte (byte_token(b))
  kCharsByteFallback,  // SentencePiece BPE: one symbol per UTF-8 character
                       // when it is a token, else its bytes (byte_token(b))
};

struct PairInfo {
  std::uint32_t rank = kNoRank;  // lower merges first; ties go to the leftmost pair
  TokenId result = kNoToken;
};

class MergeTable {
 public:
  struct Merge {
    TokenId left;
    TokenId right;
  };
  struct Options {
    InitialSymbols initial = InitialSymbols::kBytes;
    // A piece that is itself a token encodes to that token without merging
    // (tiktoken always does this; Hugging Face when ignore_merges is set).
    bool whole_piece_lookup = true;
    // Ids of tokens to use for raw bytes when they are not the plain one-byte
    // tokens (SentencePiece "<0x41>" byte-fallback tokens). Empty: the token
    // whose bytes are that single byte.
    std::vector<TokenId> byte_tokens;
    // Emitted for a symbol that has no token (a vocabulary without byte
    // fallback); kNoToken when every byte has a token.
    TokenId unk = kNoToken;
  };

  MergeTable() = default;

  // tiktoken form: token_bytes[rank] is the token with that rank and id.
  static Result<MergeTable> from_ranks(std::vector<std::string> token_bytes);
  // Ranked form with explicit priorities (equal priorities allowed). Ids
  // without a token are given as std::nullopt.
  static Result<MergeTable> from_priorities(std::vector<std::optional<std::string>> token_bytes,
                                            std::vector<std::uint32_t> priority, Options options);
  // Merge-list form (HF, GGUF gpt2): merges[i] has priority i.
  static Result<MergeTable> from_merges(std::vector<std::optional<std::string>> token_bytes,
                                        const std::vector<Merge>& merges, Options options);

  // Number of ids (one past the largest id).
  std::size_t size() const { return offsets_.empty() ? 0 : offsets_.size() - 1; }
  bool has(TokenId id) const { return id < size() && present_[id]; }
  std::string_view bytes(TokenId id) const {
    return {arena_.data() + offsets_[id], offsets_[id + 1] - offsets_[id]};
  }
  // Id of the token with exactly these bytes, or kNoToken.
  TokenId find(std::string_view bytes) const { return find(bytes, hash_bytes(bytes)); }
  // The same with hash_bytes(bytes) already computed.
  TokenId find(std::string_view bytes, std::uint64_t h) const {
    if (index_.empty()) return kNoToken;
    std::uint64_t head = head8(bytes);
    std::uint32_t meta = slot_meta(h, bytes.size());
    for (std::uint64_t i = h & index_mask_;; i = (i + 1) & index_mask_) {
      const IndexSlot& s = index_[i];
      if (s.id_plus1 == 0) return kNoToken;
      if (s.meta == meta && s.head == head &&
          (bytes.size() <= 8 || this->bytes(s.id_plus1 - 1).substr(8) == bytes.substr(8))) {
        return s.id_plus1 - 1;
      }
    }
  }
  // find(bytes, h) asked of the Bloom filter first, where the table has one:
  // for a piece looked up whole before its merges, which is seldom a token
  // (nine in ten of the runs of CJK and their parts), the filter is an L2
  // hit where the index is a miss to memory.
  TokenId find_filtered(std::string_view bytes, std::uint64_t h) const {
    return may_have(h) ? find(bytes, h) : kNoToken;
  }
  // Starts loading the index slot for hash h (a lookup soon after is cheaper).
  void prefetch(std::uint64_t h) const {
    if (!index_.empty()) __builtin_prefetch(&index_[h & index_mask_]);
  }
  // The same for a pair question about joined bytes of hash h, or for
  // find_filtered: the filter word and the index slot.
  void prefetch_pair(std::uint64_t h) const {
    if (!filter_.empty()) __builtin_prefetch(&filter_[filter_word(h)]);
    prefetch(h);
  }
  // May a piece be cut at candidate point p (bpe/piece_cuts.hpp) and its two
  // parts encoded apart? Only asked when cuts_usable(): the table's initial
  // symbols are each byte's own one-byte token (not SentencePiece characters,
  // byte fallback, or an unknown token standing for a byte).
  bool cuts_usable() const { return cuts_usable_ && !cut_bits_.empty(); }
  bool safe_cut(std::string_view piece, std::size_t p) const {
    return cuts::safe(cut_bits_.data(), cut_shift_, piece, p);
  }
  // Character-first initial symbols (bpe/char_symbols.hpp) for ranked
  // byte-level tables (tiktoken's): a character whose two boundaries are
  // clean may start as its own merge result instead of as its bytes.
  bool chars_usable() const { return cuts_usable() && ranked() && !split_nodes_.empty(); }
  // Sets unclean[p] to 1 for every p in (0, piece.size()) before which a
  // token that is not valid UTF-8 (one that starts or ends inside a
  // character) spans a character boundary of piece: an occurrence of the
  // token in piece covers byte p - 1 and byte p, and piece[p] is not a
  // continuation byte. Leaves every other entry as it was.
  void mark_unclean(std::string_view piece, std::uint8_t* unclean) const;
  // Is the character whose bytes are `code` (little-endian, 2-4 bytes) inside
  // a longer valid-UTF-8 token whose priority is not above its own token's?
  bool outranked_char(std::uint32_t code) const;
  TokenId byte_token(unsigned char b) const { return byte_tokens_[b]; }
  // May the adjacent symbols left and right merge? `joined` is their bytes,
  // contiguous in the piece being encoded (the ranked form looks it up; the
  // merge-list form looks up the id pair).
  PairInfo pair(TokenId left, TokenId right, std::string_view joined) const {
    if (!priority_.empty()) return ranked_pair(joined, hash_bytes(joined));
    return pair_from_list(left, right);
  }
  // The ranked form's answer, hash_bytes(joined) already computed (and its
  // slots prefetched with prefetch_pair). Only when ranked().
  PairInfo ranked_pair(std::string_view joined, std::uint64_t h) const {
    TokenId t = find_filtered(joined, h);
    if (t == kNoToken) return {};
    return {rank_of(t), t};
  }
  // Ranked form with byte initial symbols: the token whose bytes are the two
  // bytes b0 b1, at [b0 | b1 << 8] (kNoToken: none); nullptr otherwise. A
  // merge's first round, where every pair is two single bytes, then needs no
  // hash, probe or key compare. Built on load, never stored in the image.
  const TokenId* byte_pairs() const { return byte_pairs_.empty() ? nullptr : byte_pairs_.data(); }
  // The pair answer for the two bytes at p, from byte_pairs() (non-null).
  PairInfo byte_pair(const unsigned char* p) const {
    TokenId t = byte_pairs_[p[0] | (p[1] << 8)];
    if (t == kNoToken) return {};
    return {rank_of(t), t};
  }
  // The rank of token t in the ranked form (t < size()); in tiktoken's
  // tables the id itself, without a cache miss in priority_.
  std::uint32_t rank_of(TokenId t) const { return priority_is_id_ ? t : priority_[t]; }
  // Merge priority of a token in the ranked form (kNoRank otherwise).
  std::uint32_t priority(TokenId id) const {
    return id < priority_.size() ? priority_[id] : kNoRank;
  }
  bool ranked() const { return !priority_.empty(); }
  // Is pair(left, right, joined) a function of the two ids alone? True for
  // the merge-list form, and for the ranked form when every byte symbol's id
  // stands for exactly its own bytes (tiktoken; not "<0x41>"-style byte
  // fallback). Symbols with the unk id never are. Lets the encoder cache by id.
  bool pairs_by_id() const { return pairs_by_id_; }
  const Options& options() const { return options_; }
  // The built table as one binary image (native byte order, this build's
  // hash), and back: a corrupt or foreign image is an error, never trusted.
  // For caching a vocabulary that is slow to parse (formats/table_cache).
  // With a keeper (the owner of image's memory, e.g. a mapped file), the
  // table reads its arrays in place and holds the keeper; without, it copies.
  std::string serialize() const;
  static Result<MergeTable> deserialize(std::string_view image,
                                        std::shared_ptr<const void> keeper = nullptr);
  // Sets an edited image's checksum to match its body, so that tests reach
  // the checks behind the checksum: an image with a good checksum and bad
  // bounds must still be refused. False when `image` is too short to be one.
  static bool reseal(std::string& image);

  // The merges in priority order (derived for the ranked form: for every
  // token with a priority, its first split into two tokens).
  std::vector<Merge> merges() const;

 private:
  PairInfo pair_from_list(TokenId left, TokenId right) const;
  Status build_index(std::string_view source);
  Status build_pairs(const std::vector<Merge>& merges);
  void finish_byte_tokens();
  void sync_tokens();  // after filling arena_, offsets_, present_
  Status check_image(const std::vector<TokenId>& bytes256) const;
  static const std::uint32_t kSlotSizes;

  std::shared_ptr<const void> keeper_;  // owner of the image the arrays view, if any
  TableArray<char> arena_;              // all token bytes, concatenated
  TableArray<std::size_t> offsets_;     // (size + 1): token id -> start in arena_
  TableArray<std::uint8_t> present_;    // (size): 1 if the id has a token
  TableArray<std::uint32_t> priority_;  // (size) ranked form only
  Options options_;
  TokenId byte_tokens_[256];
  bool pairs_by_id_ = false;
  bool priority_is_id_ = false;  // ranked form with priority_[id] == id (tiktoken)

  // Open-addressing index bytes -> id. Each slot keeps the token's first 8
  // bytes, its length and a hash tag inline, so a lookup of a token of up to 8
  // bytes (most words) touches one cache line and never the arena.
  struct IndexSlot {
    std::uint64_t head = 0;      // first min(8, len) bytes, zero-padded
    std::uint32_t id_plus1 = 0;  // 0 = empty
    std::uint32_t meta = 0;      // length (low 16 bits) | hash tag (high 16)
  };
  static std::uint64_t head8(std::string_view b) {
    return load_le(reinterpret_cast<const unsigned char*>(b.data()), b.size() < 8 ? b.size() : 8);
  }
  static std::uint32_t slot_meta(std::uint64_t h, std::size_t len) {
    return static_cast<std::uint32_t>((h >> 48) << 16) |
           static_cast<std::uint32_t>(len < 0xffff ? len : 0xffff);
  }
  TableArray<IndexSlot> index_;
  std::uint64_t index_mask_ = 0;
  // Ranked form: a Bloom filter of the tokens' hashes, three bits in one
  // 64-bit word per token, about 10 bits per token (128 KiB for cl100k_base).
  // Most pairs the merge loop asks about are not tokens (70% of its index
  // lookups on mixed text, 85% on CJK); the filter, small enough to stay in
  // L2, answers those without reaching the multi-megabyte index.
  TableArray<std::uint64_t> filter_;
  std::uint64_t filter_mask_ = 0;
  std::size_t filter_word(std::uint64_t h) const { return (h >> 20) & filter_mask_; }
  static std::uint64_t filter_bits(std::uint64_t h) {
    return (std::uint64_t{1} << ((h >> 40) & 63)) | (std::uint64_t{1} << ((h >> 46) & 63)) |
           (std::uint64_t{1} << ((h >> 52) & 63));
  }
  // False only when no token hashes to h.
  bool may_have(std::uint64_t h) const {
    if (filter_.empty()) return true;
    std::uint64_t m = filter_bits(h);
    return (filter_[filter_word(h)] & m) == m;
  }
  void build_filter();
  // The bit set of piece_cuts.hpp: 2^(64 - cut_shift_) bits, about 32 per key.
  TableArray<std::uint64_t> cut_bits_;
  unsigned cut_shift_ = 64;
  bool cuts_usable_ = false;
  void build_cuts();
  void finish_cuts();  // cut_shift_ and cuts_usable_ from the built or loaded table
  // char_symbols.hpp's tables (merge_table_chars.cpp): a trie of the
  // tokens that are not valid UTF-8 and hold a byte that could start a
  // character after their first (node: first edge | edges << 32 | token << 48;
  // edge: byte << 24 | child; node 0 the root), its edges as an
  // open-addressing map (node << 8 | byte) + 1 -> child, one probe a step
  // (built on load: a node's edges scanned in turn cost a tenth of a Thai
  // text's encode), and the outranked characters, sorted.
  TableArray<std::uint64_t> split_nodes_;
  TableArray<std::uint32_t> split_edges_;
  std::vector<std::uint64_t> split_next_;  // key << 32 | child, 0: empty
  std::uint32_t split_root_[256] = {};     // the root's child by byte (0: none)
  std::uint64_t split_mask_ = 0;
  TableArray<std::uint32_t> outranked_chars_;
  void build_chars();
  void finish_chars();
  std::uint64_t split_slot(std::uint32_t key) const;
  std::uint32_t split_child(std::uint32_t node, unsigned char byte) const;  // 0: none
  bool check_chars() const;          // a loaded image's trie: every edge and child in bounds
  std::vector<TokenId> byte_pairs_;  // 65536 entries, or empty
  void build_byte_pairs();           // from the index, after build or load
  // Open-addressing index (left, right) -> PairInfo for the merge-list form.
  struct PairSlot {
    std::uint64_t key = UINT64_MAX;
    PairInfo info;
  };
  TableArray<PairSlot> pairs_;
  std::uint64_t pairs_mask_ = 0;
};

}  // namespace tok::bpe
