#include <doctest/doctest.h>

#include <random>

#include "formats/registry.hpp"
#include "show/token_spans.hpp"

using namespace tok;

namespace {

const bpe::Tokenizer& o200k() {
  static bpe::Tokenizer tk = formats::load_tokenizer("o200k_base").value();
  return tk;
}

// The spans tile the text: in order, no gaps, no overlap, and their bytes
// concatenate to the input.
void check_tiling(const show::Tokenization& t, std::string_view input) {
  std::string joined;
  std::size_t next = 0;
  for (const auto& s : t.spans) {
    CHECK(s.offset == next);
    CHECK(s.length > 0);
    joined.append(t.text, s.offset, s.length);
    next = s.offset + s.length;
  }
  CHECK(next == input.size());
  CHECK(joined == input);
}

}  // namespace

TEST_CASE("spans of a small text") {
  auto t = show::build_spans(o200k(), "hello world", bpe::SpecialMode::kText).value();
  REQUIRE(t.spans.size() == 2);
  CHECK(t.spans[0].offset == 0);
  CHECK(t.spans[0].length == 5);
  CHECK(t.spans[1].offset == 5);
  CHECK(t.spans[1].length == 6);
  CHECK(t.encoding == "o200k_base");
  check_tiling(t, "hello world");
}

TEST_CASE("spans tile invalid UTF-8, split characters and special tokens") {
  std::string input =
      "caf\xc3\xa9 \xff\xfe x \xe4\xbd\xa0\xe5\xa5\xbd <|endoftext|> \xf0\x9f\x98\x80!";
  for (auto mode : {bpe::SpecialMode::kText, bpe::SpecialMode::kAllow}) {
    auto t = show::build_spans(o200k(), input, mode).value();
    check_tiling(t, input);
    bool any_special = false;
    for (const auto& s : t.spans) any_special |= s.special;
    CHECK(any_special == (mode == bpe::SpecialMode::kAllow));
  }
  CHECK_FALSE(show::build_spans(o200k(), input, bpe::SpecialMode::kError).ok());
}

TEST_CASE("spans tile random bytes") {
  std::mt19937 rng(7);
  for (int round = 0; round < 50; ++round) {
    std::string input(rng() % 200, '\0');
    for (char& c : input) c = static_cast<char>(rng() % 3 == 0 ? rng() % 256 : 'a' + rng() % 26);
    check_tiling(show::build_spans(o200k(), input, bpe::SpecialMode::kText).value(), input);
  }
}

TEST_CASE("spans_within and common_end") {
  auto a = show::build_spans(o200k(), "hello world again", bpe::SpecialMode::kText).value();
  CHECK(show::spans_within(a.spans, 0) == 0);
  CHECK(show::spans_within(a.spans, 5) == 1);
  CHECK(show::spans_within(a.spans, 10) == 1);
  CHECK(show::spans_within(a.spans, 11) == 2);
  CHECK(show::spans_within(a.spans, 1000) == a.spans.size());
  auto b = a;
  // Make b cut "hello" as "he" + "llo": common ends are 0, 5, 11, 17.
  b.spans.insert(b.spans.begin() + 1, show::Span{0, 2, 3, false});
  b.spans[0].length = 2;
  CHECK(show::common_end(a, b, 4) == 0);
  CHECK(show::common_end(a, b, 5) == 5);
  CHECK(show::common_end(a, b, 16) == 11);
  CHECK(show::common_end(a, b, 17) == 17);
}
