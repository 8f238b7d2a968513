// Tokenizer: a complete encoding = pre-tokenizer(s) + merge table + special
// tokens (+ optional text transform for vocabularies that normalize). It is
// what `-e ENC` resolves to and what the model runtime gets; immutable after
// construction, so one instance serves many threads (each with its own
// EncodeScratch).
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

// Where a token came from in the (transformed) input: for --tokens output.
struct TokenSpan {
  TokenId id;
  std::size_t offset;  // byte offset of the piece the token belongs to
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

  // Applied to the text before splitting (normalizers, SentencePiece's
  // space-to-"▁"); absent for tiktoken vocabularies.
  using Transform = std::function<std::string(std::string_view)>;
  void set_transform(Transform t) { transform_ = std::move(t); }
  bool has_transform() const { return static_cast<bool>(transform_); }
  std::string apply_transform(std::string_view text) const;

  // Applied to each run of ordinary text between special tokens, after the
  // specials were found in the raw text (HF normalizers and Metaspace,
  // llama.cpp's SentencePiece space prefix). `offset` is where the run starts
  // in the input (HF "prepend first" looks for 0). Empty runs are skipped.
  using SegmentTransform = std::function<std::string(std::string_view, std::size_t offset)>;
  void set_segment_transform(SegmentTransform t) { segment_transform_ = std::move(t); }
  // Applied to decoded bytes (SentencePiece "▁" back to spaces).
  void set_decode_transform(Transform t) { decode_transform_ = std::move(t); }
  bool has_decode_transform() const { return static_cast<bool>(decode_transform_); }

  // Metadata the formats fill in (BOS/EOS that --add-special adds).
  std::optional<TokenId> bos, eos;
  bool add_bos = false, add_eos = false;
  // What the text goes through before BPE, for `tok vocab info` (HF:
  // "NFC, Split(regex), ByteLevel"); empty when only the split pattern applies.
  std::string pipeline;

  // Encodes text, appending to out. kError fails naming the first special
  // token string found.
  Status encode(std::string_view text, SpecialMode mode, std::vector<TokenId>& out,
                EncodeScratch& scratch) const;
  Result<std::vector<TokenId>> encode(std::string_view text, SpecialMode mode) const;
  // As encode, with the byte offset of each token's piece.
  Status encode_spans(std::string_view text, SpecialMode mode, std::vector<TokenSpan>& out) const;
  // The same with caller-owned scratch (its piece cache stays warm across calls).
  Status encode_spans(std::string_view text, SpecialMode mode, std::vector<TokenSpan>& out,
                      EncodeScratch& scratch) const;
  // Number of tokens encode would give, without building the vector. With
  // threads > 1 large texts are cut at guaranteed piece boundaries and
  // counted in parallel; the count never depends on `threads`.
  Result<std::size_t> count(std::string_view text, SpecialMode mode, unsigned threads = 1) const;
  // The same on one thread with caller-owned scratch: a worker counting many
  // small files keeps its caches warm instead of starting cold per file.
  Result<std::size_t> count(std::string_view text, SpecialMode mode,
                            EncodeScratch& scratch) const;
  std::size_t count_ordinary(std::string_view text, EncodeScratch& scratch) const;

  // Refuses text holding a special token that kError refuses, naming the
  // token and its byte (text starts at byte `offset` of the input: a chunk
  // of a stream).
  Status check_no_specials(std::string_view text, std::uint64_t offset = 0) const;

  // Cut points 0 = c0 < c1 < ... = text.size(), about `chunk` bytes apart,
  // at which the text can be encoded piecewise with exactly the result of
  // encoding it whole (guaranteed piece boundaries, never inside a special
  // token). A single chunk when the pre-tokenizer offers no such guarantee.
  // Whether chunk_boundaries can cut at all (else a stream is read whole).
  bool can_cut() const { return pre_.size() == 1 && !transform_ && !segment_transform_; }
  std::vector<std::size_t> chunk_boundaries(std::string_view text, std::size_t chunk,
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
  // The text encoding works on: the input after the transform (kept in
  // storage), checked for specials when mode is kError.
  Result<std::string_view> prepare(std::string_view input, SpecialMode mode,
                                   std::string& storage) const;
  // Does encoding need the per-segment path (segment transform, specials
  // matched in every mode)?
  bool segmented(SpecialMode mode) const;
  // Splits text at the specials `mode` matches: ordinary(run, offset) for each
  // run of text, special(id, offset) for each special token.
  template <class O, class S>
  void for_each_segment(std::string_view text, SpecialMode mode, O&& ordinary, S&& special) const;
  // The plain split for --special allow (no strip flags, no segment
  // transform): ordinary(run) between specials, special(id, offset) for each.
  template <class O, class S>
  void for_each_special(std::string_view text, O&& ordinary, S&& special) const;
  // The tokens of ordinary text (no specials): appended to *out and/or
  // counted into *count.
  void encode_ordinary(std::string_view text, std::vector<TokenId>* out, std::size_t* count,
                       EncodeScratch& scratch) const;
  // One-thread count after the transform and the special check.
  Result<std::size_t> count_prepared(std::string_view text, SpecialMode mode,
                                     EncodeScratch& scratch) const;
  // encode() after the transform has been applied.
  Status encode_prepared(std::string_view text, SpecialMode mode, std::vector<TokenId>& out,
                         EncodeScratch& scratch) const;

  std::string name_;
  MergeTable table_;
  std::vector<text::PreTokenizer> pre_;  // applied in sequence (HF Sequence)
  std::vector<SpecialToken> specials_;
  std::vector<std::uint8_t> special_first_;  // (256) first bytes of specials
  int only_first_ = -1;  // the first byte of every special when they share one (memchr)
  std::size_t vocab_size_ = 0;
  Transform transform_;
  SegmentTransform segment_transform_;
  Transform decode_transform_;
  bool has_always_ = false;  // some special has always = true
};

}  // namespace tok::bpe
