#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "compare/segment.hpp"

using tok::compare::ByteSpan;
using tok::compare::Segmenter;

namespace {

Segmenter make() {
  auto s = Segmenter::create();
  REQUIRE(s.ok());
  return std::move(*s);
}

std::vector<std::string> words_of(Segmenter& s, std::string_view text) {
  std::vector<ByteSpan> spans;
  s.word_spans(text, spans);
  std::vector<std::string> out;
  for (auto sp : spans) out.emplace_back(text.substr(sp.begin, sp.end - sp.begin));
  return out;
}

}  // namespace

TEST_CASE("graphemes: ASCII, combining marks, emoji, Indic clusters") {
  Segmenter s = make();
  CHECK(s.count_graphemes("") == 0);
  CHECK(s.count_graphemes("abc") == 3);
  // e + COMBINING ACUTE ACCENT is one user-perceived character.
  CHECK(s.count_graphemes("e\xCC\x81") == 1);
  CHECK(s.count_graphemes("caf\x65\xCC\x81!") == 5);
  // Family emoji: man ZWJ woman ZWJ girl.
  CHECK(s.count_graphemes(
            "\xF0\x9F\x91\xA8\xE2\x80\x8D\xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x91\xA7") == 1);
  // Hindi "नमस्ते": न, म, स्ते (extended grapheme clusters join virama + consonant
  // since Unicode 15.1; older ICU gives 4 clusters: न म स् ते).
  std::size_t n = s.count_graphemes("नमस्ते");
  CHECK((n == 3 || n == 4));
  // CR LF is one grapheme.
  CHECK(s.count_graphemes("a\r\nb") == 3);
  // Thai: ที่ is one cluster (consonant + vowel + tone mark).
  CHECK(s.count_graphemes("ที่") == 1);
}

TEST_CASE("words: spaces and punctuation are not words") {
  Segmenter s = make();
  CHECK(words_of(s, "The river, 2 bridges!") ==
        std::vector<std::string>{"The", "river", "2", "bridges"});
  CHECK(s.count_words("  ...  ") == 0);
  CHECK(words_of(s, "don't") == std::vector<std::string>{"don't"});
}

TEST_CASE("words: dictionary segmentation of CJK and Thai") {
  Segmenter s = make();
  // Thai has no spaces between words; ICU's dictionary splits them.
  auto th = words_of(s, "แม่น้ำสวยงาม");  // "the river is beautiful"
  CHECK(th.size() >= 2);
  std::string joined;
  for (auto& w : th) joined += w;
  CHECK(joined == "แม่น้ำสวยงาม");
  CHECK(th[0] == "แม่น้ำ");
  // Chinese: 孩子 (child) and 学校 (school) are dictionary words.
  auto zh = words_of(s, "孩子们去学校。");
  CHECK(zh.size() >= 3);
  CHECK(zh.size() <= 5);
  CHECK(zh.front() == "孩子");
  CHECK(zh.back() == "学校");
  // Japanese kana and kanji, punctuation excluded.
  auto ja = words_of(s, "川は美しい。");
  CHECK(ja.size() >= 2);
  for (auto& w : ja) CHECK(w != "。");
  // Korean separates words with spaces.
  CHECK(words_of(s, "강은 아름답다").size() == 2);
}

TEST_CASE("words: spans are byte offsets into the text") {
  Segmenter s = make();
  std::vector<ByteSpan> spans;
  s.word_spans("é x", spans);  // é is 2 bytes
  REQUIRE(spans.size() == 2);
  CHECK(spans[0].begin == 0);
  CHECK(spans[0].end == 2);
  CHECK(spans[1].begin == 3);
  CHECK(spans[1].end == 4);
}
