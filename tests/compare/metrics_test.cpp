#include <doctest/doctest.h>

#include <vector>

#include "compare/metrics.hpp"

using namespace tok::compare;

TEST_CASE("continued words: hand-checked spans") {
  // Text "ab cd efg": words [0,2) [3,5) [6,9).
  std::vector<ByteSpan> words{{0, 2}, {3, 5}, {6, 9}};
  // Tokens: "ab" | " c" "d" | " ef" "g": word 1 covered by 1 token, words 2, 3 by 2.
  std::vector<ByteSpan> tokens{{0, 2}, {2, 4}, {4, 5}, {5, 8}, {8, 9}};
  CHECK(count_continued_words(words, tokens) == 2);
  // One token per word (with its leading space): nothing continued.
  std::vector<ByteSpan> whole{{0, 2}, {2, 5}, {5, 9}};
  CHECK(count_continued_words(words, whole) == 0);
  // One token spanning everything covers each word once.
  std::vector<ByteSpan> one{{0, 9}};
  CHECK(count_continued_words(words, one) == 0);
  // Byte fallback: a 3-byte character in 3 tokens.
  std::vector<ByteSpan> cjk_word{{0, 3}};
  std::vector<ByteSpan> bytes{{0, 1}, {1, 2}, {2, 3}};
  CHECK(count_continued_words(cjk_word, bytes) == 1);
  CHECK(count_continued_words({}, bytes) == 0);
  CHECK(count_continued_words(cjk_word, std::vector<ByteSpan>{}) == 0);
}

TEST_CASE("continued words: a token spanning two words counts for both") {
  // "a b": words [0,1) [2,3); tokens "a b" split as [0,2) [2,3)?? -> word 2
  // has one token. Tokens [0,3) only: each word one token.
  std::vector<ByteSpan> words{{0, 1}, {2, 3}};
  std::vector<ByteSpan> tokens{{0, 3}};
  CHECK(count_continued_words(words, tokens) == 0);
  // Tokens [0,2) [2,3) and [0,3)-style CJK: a token across the boundary of
  // words 1 and 2, plus one more token inside word 2 -> word 2 continued.
  std::vector<ByteSpan> w2{{0, 3}, {3, 6}};
  std::vector<ByteSpan> t2{{0, 4}, {4, 6}};
  CHECK(count_continued_words(w2, t2) == 1);
}

TEST_CASE("derived metrics on tiny counts") {
  TextCounts text{100, 80, 20};
  TokenCounts tok{25, 5};
  Metrics m = derive_metrics(text, tok, std::size_t{20}, 2.0, true);
  CHECK(*m.bytes_per_token == doctest::Approx(4.0));
  CHECK(*m.chars_per_token == doctest::Approx(3.2));
  CHECK(*m.fertility == doctest::Approx(1.25));
  CHECK(*m.continued == doctest::Approx(0.25));
  CHECK(*m.premium == doctest::Approx(1.25));
  // 25 tokens / 20 words * 1000 words * $2 per 1e6 tokens = $0.0025.
  CHECK(*m.cost_per_1k_words == doctest::Approx(0.0025));
}

TEST_CASE("premium of the baseline is exactly 1") {
  for (std::size_t n : {1u, 3u, 7u, 12345u, 999983u}) {
    TextCounts text{n * 3, n, n / 2};
    TokenCounts tok{n, 0};
    Metrics m = derive_metrics(text, tok, n, std::nullopt, true);
    CHECK(*m.premium == 1.0);
  }
}

TEST_CASE("empty samples give no ratios rather than infinities") {
  Metrics m = derive_metrics({}, {}, std::size_t{0}, std::nullopt, true);
  CHECK(!m.bytes_per_token);
  CHECK(!m.fertility);
  CHECK(!m.premium);
  Metrics no_words = derive_metrics({10, 0, 0}, {2, 0}, std::nullopt, 1.0, false);
  CHECK(*no_words.bytes_per_token == doctest::Approx(5.0));
  CHECK(!no_words.fertility);
  CHECK(!no_words.premium);
  CHECK(!no_words.cost_per_1k_words);
}

TEST_CASE("continued words from token spans: a token with no bytes continues nothing") {
  // "▁The▁cat" as mistral encodes "The cat": spans of the input, the
  // SentencePiece prefix space taking no bytes.
  std::vector<ByteSpan> words{{0, 3}, {4, 7}};
  std::vector<tok::bpe::TokenSpan> tokens{{1, 0, 0}, {415, 0, 3}, {5255, 3, 7}};
  CHECK(count_continued_words(words, tokens) == 0);
  std::vector<tok::bpe::TokenSpan> split{{415, 0, 3}, {1, 3, 5}, {2, 5, 7}};
  CHECK(count_continued_words(words, split) == 1);
}
