// Token spans: where each token of a text lies in that text. `tok show`
// draws tokens from spans, so the spans must tile the text exactly once and in
// order (concatenated, they give back the input byte for byte, invalid UTF-8
// included); build_spans checks that before anything is drawn. A token that
// takes no input bytes (the prefix space SentencePiece adds) has length 0.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "bpe/tokenizer.hpp"
#include "core/result.hpp"

namespace tok::show {

struct Span {
  bpe::TokenId id;
  std::size_t offset;  // byte offset in Tokenization::text
  std::size_t length;  // bytes
  bool special;        // a special token (<|endoftext|>) matched in the text
};

struct Tokenization {
  std::string encoding;     // the tokenizer's name
  std::string text;         // the input, which the spans index
  std::vector<Span> spans;  // in order, tiling text
};

// Encodes `input` with `tk` and places each token in the text. Fails like
// Tokenizer::encode (special tokens with mode kError).
Result<Tokenization> build_spans(const bpe::Tokenizer& tk, std::string_view input,
                                 bpe::SpecialMode mode);

// Index of the first span that does not end at or before `limit` bytes, i.e.
// the number of spans wholly inside text[0, limit).
std::size_t spans_within(const std::vector<Span>& spans, std::size_t limit);

}  // namespace tok::show

namespace tok::show {

// The largest byte offset <= limit at which both tokenizations of the same
// text end a token (0 if none): where an aligned view of both can stop.
std::size_t common_end(const Tokenization& a, const Tokenization& b, std::size_t limit);

}  // namespace tok::show
