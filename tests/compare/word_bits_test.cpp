// WordBits round trips.
#include <doctest/doctest.h>

#include <random>
#include <vector>

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
