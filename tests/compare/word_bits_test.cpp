// WordBits round trips, and TokenStarts' continued words against the
// span-based count_continued_words (metrics.hpp) on random words and tokens.
#include <doctest/doctest.h>

#include <random>
#include <vector>

#include "compare/metrics.hpp"
#include "compare/word_bits.hpp"

using namespace tok::compare;

namespace {

std::vector<ByteSpan> spans_of(const WordBits& bits) {
  std::vector<ByteSpan> out;
  bits.spans(out);
  return out;
}

bool same(const std::vector<ByteSpan>& a, const std::vector<ByteSpan>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].begin != b[i].begin || a[i].end != b[i].end) return false;
  }
  return true;
}

// Random disjoint words over n bytes, adjacent ones included (ICU's CJK
// words touch), some across 64-byte words and up to the text's end.
std::vector<ByteSpan> random_words(std::mt19937& rng, std::size_t n) {
  std::vector<ByteSpan> w;
  for (std::size_t p = rng() % 3; p < n;) {
    std::size_t len = 1 + rng() % (rng() % 8 == 0 ? 150 : 9);
    if (p + len > n) len = n - p;
    w.push_back({p, p + len});
    p += len + rng() % 3;  // 0: the next word touches this one
  }
  return w;
}

}  // namespace

TEST_CASE("word bits: words in, the same words out") {
  WordBits bits;
  bits.reset(200);
  std::vector<ByteSpan> words{{0, 1}, {1, 3}, {60, 70}, {70, 128}, {128, 129}, {190, 200}};
  for (auto w : words) bits.add(w.begin, w.end);
  CHECK(bits.count() == words.size());
  CHECK(same(spans_of(bits), words));
  bits.clear(60, 129);  // the words starting there and their interiors
  CHECK(same(spans_of(bits), {{0, 1}, {1, 3}, {190, 200}}));
  bits.reset(0);
  CHECK(bits.count() == 0);
  CHECK(spans_of(bits).empty());
}

TEST_CASE("word bits: random words survive the round trip") {
  std::mt19937 rng(7);
  for (int round = 0; round < 300; ++round) {
    std::size_t n = rng() % 700;
    std::vector<ByteSpan> words = random_words(rng, n);
    WordBits bits;
    bits.reset(n);
    for (auto w : words) bits.add(w.begin, w.end);
    REQUIRE(same(spans_of(bits), words));
  }
}

TEST_CASE("token starts: continued words equal the span-based count") {
  std::mt19937 rng(20261202);
  // Ids 0..9 have lengths 1..10; id 10 is 300 bytes (past the one-byte table).
  TokenLengths lengths;
  for (std::uint32_t l = 1; l <= 10; ++l) lengths.len.push_back(static_cast<std::uint8_t>(l));
  lengths.len.push_back(255);
  lengths.long_len.assign(lengths.len.begin(), lengths.len.end());
  lengths.long_len.back() = 300;
  for (int round = 0; round < 500; ++round) {
    std::size_t n = 1 + rng() % 2000;
    std::vector<ByteSpan> words = random_words(rng, n);
    WordBits bits;
    bits.reset(n);
    for (auto w : words) bits.add(w.begin, w.end);
    // Tokens tiling [0, n), added in parts that end at token boundaries.
    std::vector<tok::bpe::TokenId> ids;
    std::vector<ByteSpan> tokens;
    std::size_t p = 0;
    while (p < n) {
      tok::bpe::TokenId id = rng() % 200 == 0 ? 10 : static_cast<tok::bpe::TokenId>(rng() % 10);
      std::size_t len = lengths.long_len[id];
      if (p + len > n) {
        len = std::min<std::size_t>(n - p, 10);
        id = static_cast<tok::bpe::TokenId>(len - 1);
      }
      ids.push_back(id);
      tokens.push_back({p, p + len});
      p += len;
    }
    TokenStarts starts;
    starts.reset(bits);
    std::size_t k = 0;
    while (k < ids.size()) {
      std::size_t m = std::min(ids.size() - k, std::size_t{1 + rng() % 40});
      std::size_t bytes = tokens[k + m - 1].end - tokens[k].begin;
      REQUIRE(starts.add(bytes, std::span(ids).subspan(k, m), lengths));
      k += m;
    }
    auto fast = starts.count_continued();
    REQUIRE(fast.has_value());
    CHECK(*fast == count_continued_words(words, tokens));
  }
}

TEST_CASE("token starts: tokens that do not tile are refused") {
  TokenLengths lengths{{1, 2, 3}, {1, 2, 3}};
  WordBits bits;
  bits.reset(6);
  bits.add(0, 6);
  TokenStarts starts;
  starts.reset(bits);
  std::vector<tok::bpe::TokenId> ids{2, 1};  // 3 + 2 bytes
  CHECK(!starts.add(6, ids, lengths));       // do not add up to 6
  starts.reset(bits);
  CHECK(starts.add(5, ids, lengths));
  CHECK(!starts.count_continued().has_value());  // a byte is missing
  std::vector<tok::bpe::TokenId> last{0};
  CHECK(starts.add(1, last, lengths));
  CHECK(starts.count_continued() == 1);
  starts.reset(bits);
  std::vector<tok::bpe::TokenId> unknown{7};
  CHECK(!starts.add(1, unknown, lengths));
}
