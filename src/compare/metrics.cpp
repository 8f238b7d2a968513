#include "compare/metrics.hpp"

namespace tok::compare {

std::size_t count_continued_words(std::span<const ByteSpan> words,
                                  std::span<const ByteSpan> tokens) {
  std::size_t continued = 0;
  std::size_t t = 0;
  for (const ByteSpan& w : words) {
    // Tokens that end at or before the word starts can overlap no later word.
    while (t < tokens.size() && tokens[t].end <= w.begin) ++t;
    std::size_t n = 0;
    for (std::size_t k = t; k < tokens.size() && tokens[k].begin < w.end && n < 2; ++k) {
      if (tokens[k].end > tokens[k].begin) ++n;  // empty tokens cover nothing
    }
    if (n >= 2) ++continued;
  }
  return continued;
}

std::size_t count_continued_words(std::span<const ByteSpan> words,
                                  std::span<const bpe::TokenSpan> tokens) {
  std::size_t continued = 0;
  std::size_t t = 0;
  for (const ByteSpan& w : words) {
    while (t < tokens.size() && tokens[t].end <= w.begin) ++t;
    std::size_t n = 0;
    for (std::size_t k = t; k < tokens.size() && tokens[k].begin < w.end && n < 2; ++k) {
      if (tokens[k].end > tokens[k].begin) ++n;  // empty tokens cover nothing
    }
    if (n >= 2) ++continued;
  }
  return continued;
}

std::optional<double> ratio(std::size_t num, std::size_t den) {
  if (den == 0) return std::nullopt;
  return static_cast<double>(num) / static_cast<double>(den);
}

Metrics derive_metrics(const TextCounts& text, const TokenCounts& tok,
                       std::optional<std::size_t> baseline_tokens,
                       std::optional<double> price_per_mtok, bool have_words) {
  Metrics m;
  m.bytes_per_token = ratio(text.bytes, tok.tokens);
  if (have_words) {
    m.chars_per_token = ratio(text.graphemes, tok.tokens);
    m.fertility = ratio(tok.tokens, text.words);
    m.continued = ratio(tok.continued_words, text.words);
    if (price_per_mtok && text.words > 0) {
      m.cost_per_1k_words = *price_per_mtok * 1e-6 * static_cast<double>(tok.tokens) * 1000.0 /
                            static_cast<double>(text.words);
    }
  }
  if (baseline_tokens) m.premium = ratio(tok.tokens, *baseline_tokens);
  return m;
}

}  // namespace tok::compare
