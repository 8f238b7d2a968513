// The per (vocabulary x sample) numbers of `tok compare` and the ratios
// derived from them. Counts are kept as integers so that samples, chunks and
// threads add up exactly; ratios are computed at the end.
//
// Definitions (see docs/compare.md):
//   bytes/token     UTF-8 bytes per token
//   chars/token     grapheme clusters (ICU) per token
//   fertility       tokens per word (ICU word segmentation)
//   continued       share of words covered by 2+ tokens (Rust et al. 2021,
//                   "How Good is Your Tokenizer?"): a token covers a word when
//                   their byte ranges overlap, so a token that spans two words
//                   counts for both and a word split inside a character (byte
//                   fallback) is continued
//   premium         tokens / tokens of the baseline sample (Petrov et al.
//                   2023, "Language Model Tokenizers Introduce Unfairness
//                   Between Languages"); the baseline's own premium is 1
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bpe/tokenizer.hpp"
#include "compare/segment.hpp"

namespace tok::compare {

// What the text itself measures: the same for every vocabulary.
struct TextCounts {
  std::size_t bytes = 0;
  std::size_t graphemes = 0;
  std::size_t words = 0;
  TextCounts& operator+=(const TextCounts& o) {
    bytes += o.bytes;
    graphemes += o.graphemes;
    words += o.words;
    return *this;
  }
};

// What one vocabulary measures on the text.
struct TokenCounts {
  std::size_t tokens = 0;
  std::size_t continued_words = 0;  // words covered by 2+ tokens
  TokenCounts& operator+=(const TokenCounts& o) {
    tokens += o.tokens;
    continued_words += o.continued_words;
    return *this;
  }
};

// Number of words (sorted, disjoint spans) overlapped by two or more tokens
// (sorted, disjoint spans). Linear in words + tokens.
std::size_t count_continued_words(std::span<const ByteSpan> words,
                                  std::span<const ByteSpan> tokens);

// The same with tokens as encode_spans gives them (spans of the input).
std::size_t count_continued_words(std::span<const ByteSpan> words,
                                  std::span<const bpe::TokenSpan> tokens);

// Ratios; nullopt when the denominator is zero (an empty sample).
std::optional<double> ratio(std::size_t num, std::size_t den);

struct Metrics {
  std::optional<double> bytes_per_token;
  std::optional<double> chars_per_token;
  std::optional<double> fertility;          // tokens per word
  std::optional<double> continued;          // share of words, 0..1
  std::optional<double> premium;            // tokens / baseline tokens
  std::optional<double> cost_per_1k_words;  // USD, with -m
};

// premium: the baseline's token count for the same vocabulary (absent when
// there is no baseline sample). price_per_mtok: USD per million input tokens.
Metrics derive_metrics(const TextCounts& text, const TokenCounts& tok,
                       std::optional<std::size_t> baseline_tokens,
                       std::optional<double> price_per_mtok, bool have_words);

}  // namespace tok::compare
