// Tokenizer: a complete encoding = pre-tokenizer(s) + merge table + special
// tokens (+ optional text transform for vocabularies that normalize). It is
// what `-e ENC` resolves to and what the model runtime gets. The loader
// (formats/) finishes it: the transforms and the public metadata fields
// (bos, eos, add_bos, add_eos, pipeline) are set before load_tokenizer
// returns it, and nothing changes it after that: shared by const reference,
// one instance serves many threads (each with its own EncodeScratch).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bpe/encoder.hpp"
#include "bpe/merge_table.hpp"
#include "core/result.hpp"
#include "text/pretokenizer.hpp"

namespace tok::bpe {

// What to do with special-token strings found in the input text.
enum class SpecialMode {
  kError,  // refuse the text (tiktoken's default for encode)
  kAllow,  // encode each occurrence as its special id
  kText,   // treat it as ordinary text (tiktoken's encode_ordinary)
};

struct SpecialToken {
  std::string text;
  TokenId id;
  // Matched in every mode, never refused (Hugging Face added tokens with
  // "special": false, llama.cpp user-defined tokens).
  bool always = false;
  // Swallow the whitespace before / after an occurrence (HF lstrip/rstrip).
  bool lstrip = false, rstrip = false;
};

// Where a token lies in the user's input: bytes [begin, end). Spans of one
// encoding are in order and non-decreasing; for vocabularies whose
// normalizer rewrites the text they are mapped back through the alignment
// (text/alignment.hpp), so they always index the input as given. They tile
// the input (consecutive, no gaps) unless a special token's strip flags or
// a normalizer drop bytes at the very end, or an unknown-token piece gives
// fewer bytes than it covers.
struct TokenSpan {
  TokenId id;
  std::size_t begin, end;
};

class Tokenizer {
 public:
  Tokenizer() = default;
  Tokenizer(std::string name, MergeTable table, std::vector<text::PreTokenizer> pre,
            std::vector<SpecialToken> specials);

  const std::string& name() const { return name_; }
  const MergeTable& table() const { return table_; }
  const std::vector<text::PreTokenizer>& pretokenizers() const { return pre_; }
  const std::vector<SpecialToken>& specials() const { return specials_; }
  // One past the largest id, special tokens included.
  std::size_t vocab_size() const { return vocab_size_; }
  bool is_special(TokenId id) const;
  // Bytes of any id (special tokens give their text); empty for unknown ids.
  std::string_view token_bytes(TokenId id) const;
  bool has_token(TokenId id) const;

  // Applied to each run of ordinary text between special tokens (HF
  // normalizers and Metaspace, llama.cpp's SentencePiece space prefix), after
  // the specials were found in the raw text, as Hugging Face does. `offset`
  // is where the run starts in the input (HF "prepend first" looks for 0).
  // When `to_input` is non-null the transform fills it with the alignment
  // of its result with the run (text/alignment.hpp). Empty runs are skipped.
  using SegmentTransform = std::function<std::string(std::string_view, std::size_t offset,
                                                     std::vector<std::size_t>* to_input)>;
  void set_segment_transform(SegmentTransform t) { segment_transform_ = std::move(t); }
  // Applied to decoded bytes (SentencePiece "▁" back to spaces).
  using Transform = std::function<std::string(std::string_view)>;
  void set_decode_transform(Transform t) { decode_transform_ = std::move(t); }
  bool has_decode_transform() const { return static_cast<bool>(decode_transform_); }

  // Metadata the loader fills in before the Tokenizer is shared (BOS/EOS
  // that --add-special adds); read-only after that, like the rest.
  std::optional<TokenId> bos, eos;
  bool add_bos = false, add_eos = false;
  // What the text goes through before BPE, for `tok vocab info` (HF:
  // "NFC, Split(regex), ByteLevel"); empty when only the split pattern applies.
  std::string pipeline;

  // Every output below comes from one plan (encode_plan.cpp): refuse
  // specials (kError) -> split at special tokens -> transform each run ->
  // pre-tokenize -> merge. They differ only in what they collect, so ids,
  // counts and spans always agree.
  //
  // Encodes text, appending to out. kError fails naming the first special
  // token string found.
  Status encode(std::string_view text, SpecialMode mode, std::vector<TokenId>& out,
                EncodeScratch& scratch) const;
  Result<std::vector<TokenId>> encode(std::string_view text, SpecialMode mode) const;
  // The tokens with the input bytes each covers (TokenSpan), appended to out.
  Status encode_spans(std::string_view text, SpecialMode mode, std::vector<TokenSpan>& out) const;
  // The same with caller-owned scratch (its piece cache stays warm across calls).
  Status encode_spans(std::string_view text, SpecialMode mode, std::vector<TokenSpan>& out,
                      EncodeScratch& scratch) const;
  // Number of tokens encode would give, without building the vector. With
  // threads > 1 large texts are cut at chunk_boundaries and counted in
  // parallel; the count never depends on `threads`.
  Result<std::size_t> count(std::string_view text, SpecialMode mode, unsigned threads = 1) const;
  // The same on one thread with caller-owned scratch: a worker counting many
  // small files keeps its caches warm instead of starting cold per file.
  Result<std::size_t> count(std::string_view text, SpecialMode mode, EncodeScratch& scratch) const;

  // Capabilities, stated here so that callers need not probe behaviour.
  // Can chunk_boundaries cut a text anywhere but at its ends?
  bool can_cut() const { return can_cut_ && !segment_transform_; }
  // Are encode's tokens, in `mode`, the input's bytes in order (the bytes of
  // every token id are exactly the input bytes it covers)? True when the
  // text reaches the merge loop unchanged, every byte has its own one-byte
  // token (none is dropped or unknown), and no special token swallows
  // whitespace.
  bool tiles_input(SpecialMode mode) const;

  // Refuses text holding a special token that kError refuses, naming the
  // token and its byte (text starts at byte `offset` of the input: a chunk
  // of a stream).
  Status check_no_specials(std::string_view text, std::uint64_t offset = 0) const;

  // Cut points 0 = c0 < c1 < ... = text.size(), about `chunk` bytes apart,
  // at which the text can be encoded piecewise with exactly the result of
  // encoding it whole (guaranteed piece boundaries, never inside a special
  // token). A single chunk when !can_cut().
  std::vector<std::size_t> chunk_boundaries(std::string_view text, std::size_t chunk,
                                            SpecialMode mode) const;
  // The cut points for encoding or counting one text on `threads` threads:
  // chunks of kParallelChunk bytes, and a quarter of that for the last
  // threads x kParallelChunk bytes, so that the threads finish nearly
  // together (with 1 MiB chunks to the end, one thread waited for the
  // other's last chunk about half a chunk's time).
  static constexpr std::size_t kParallelChunk = std::size_t{1} << 20;
  std::vector<std::size_t> parallel_boundaries(std::string_view text, unsigned threads,
                                               SpecialMode mode) const;
  // The first such cut point at or after `from` (text.size() if none within
  // `window` bytes or when !can_cut()).
  std::size_t next_boundary(std::string_view text, std::size_t from, std::size_t window,
                            SpecialMode mode) const;

  // Ids back to bytes; an unknown id is an error naming it.
  Result<std::string> decode(std::span<const TokenId> ids) const;

  // Which specials find_special looks for.
  enum class Match { kAll, kAlways, kRefusable /* those without `always` */ };
  // First special-token occurrence at or after `from`: {position, index into
  // specials()}, or {npos, 0}.
  std::pair<std::size_t, std::size_t> find_special(std::string_view text, std::size_t from,
                                                   Match which = Match::kAll) const;

 private:
  template <class F>
  void for_each_piece(std::string_view text, F&& f) const;
  template <class F>
  void split_level(std::size_t level, std::string_view text, F& f) const;
  // Are special tokens matched in the text in `mode` (kError refuses them
  // before; kText still matches those with `always`)?
  bool matches_specials(SpecialMode mode) const;
  // Splits text at the specials `mode` matches: ordinary(run, offset) for
  // each run of text, special(id, begin, end) for each special token with the
  // input bytes it takes (its strip flags' whitespace included).
  template <class O, class S>
  void for_each_segment(std::string_view text, SpecialMode mode, O&& ordinary, S&& special) const;
  // Would cutting at p split a special token / take whitespace a special's
  // strip flag swallows?
  bool inside_special(std::string_view text, std::size_t p, std::size_t max_special) const;
  bool strips_across(std::string_view text, std::size_t p, std::size_t max_special) const;
  // For chunk_boundaries and parallel_boundaries: cuts `chunk` apart,
  // closer within the last `tail` bytes.
  std::vector<std::size_t> cut_points(std::string_view text, std::size_t chunk, std::size_t tail,
                                      SpecialMode mode) const;
  // The plan (encode_plan.cpp); Sink receives the tokens.
  template <class Sink>
  Status run(std::string_view text, SpecialMode mode, Sink& sink, EncodeScratch& scratch) const;
  template <class Sink>
  void run_ordinary(std::string_view run, std::size_t offset, Sink& sink,
                    EncodeScratch& scratch) const;

  std::string name_;
  MergeTable table_;
  std::vector<text::PreTokenizer> pre_;  // applied in sequence (HF Sequence)
  std::vector<SpecialToken> specials_;
  std::vector<std::uint8_t> special_first_;  // (256) first bytes of specials
  int only_first_ = -1;  // the first byte of every special when they share one (memchr)
  std::size_t vocab_size_ = 0;
  SegmentTransform segment_transform_;
  Transform decode_transform_;
  bool has_always_ = false;  // some special has always = true
  bool has_strip_ = false;   // some special has lstrip or rstrip
  bool can_cut_ = false;     // one pre-tokenizer that offers guaranteed boundaries
};

}  // namespace tok::bpe
