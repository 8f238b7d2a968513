// tok's Unicode tables and the classes the regex path spells from them:
// Unicode 16.0 characters, the shorthands as the references read them, and
// negated classes inside and outside [...].
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "text/piece_machine.hpp"
#include "text/pretokenizer.hpp"
#include "text/unicode_classes.hpp"
#include "text/unicode_props.hpp"
#include "text/unicode_props_build.hpp"
#include "text/unicode_tables.hpp"

using tok::text::GeneralCategory;
using tok::text::PreTokenizer;
using Pieces = std::vector<std::string>;

namespace {

Pieces pieces(std::string_view pattern, std::string_view text) {
  auto pt = PreTokenizer::from_regex(pattern);
  REQUIRE_MESSAGE(pt.ok(), pt.error().message);
  Pieces out;
  pt->split(text, [&](std::string_view p) { out.emplace_back(p); });
  return out;
}

bool contains(const tok::text::RangeSet& set, char32_t cp) {
  for (auto r : set) {
    if (r.first <= cp && cp <= r.last) return true;
  }
  return false;
}

const std::string kGaray = "\xF0\x90\xB5\x8E";    // U+10D4E (Lm, 16.0)
const std::string kTulu = "\xF0\x91\x8E\x8E";     // U+1138E (Lo, 16.0)
const std::string kSunuwar = "\xF0\x91\xAF\xB5";  // U+11BF5 (Nd, 16.0)
const std::string kGurung = "\xF0\x96\x84\xB3";   // U+16133 (Nd, 16.0)

}  // namespace

TEST_CASE("the tables are Unicode 16.0") {
  CHECK(std::string_view(tok::text::kUnicodeVersion) == "16.0");
  using tok::text::general_category;
  CHECK(general_category(U'A') == GeneralCategory::kLu);
  CHECK(general_category(0x10D4E) == GeneralCategory::kLm);
  CHECK(general_category(0x1138E) == GeneralCategory::kLo);
  CHECK(general_category(0x11BF5) == GeneralCategory::kNd);
  CHECK(general_category(0x16133) == GeneralCategory::kNd);
  CHECK(general_category(0x113D7) == GeneralCategory::kPo);
  CHECK(general_category(0x1E4D0) == GeneralCategory::kLo);  // 15.0
  CHECK(general_category(0x180E) == GeneralCategory::kCf);
  CHECK(general_category(0xD800) == GeneralCategory::kCs);
  CHECK(general_category(0x10FFFF) == GeneralCategory::kCn);
  CHECK(general_category(0x110000) == GeneralCategory::kCn);
  const auto& props = tok::text::UnicodeProps::get();
  for (char32_t letter : {0x10D4E, 0x1138E}) CHECK((props(letter) & tok::text::kPropLetter) != 0);
  for (char32_t digit : {0x11BF5, 0x16133}) CHECK((props(digit) & tok::text::kPropNumber) != 0);
}

TEST_CASE("the scanners' property table agrees with the category of every code point") {
  using GC = GeneralCategory;
  using namespace tok::text;
  const auto& props = UnicodeProps::get();
  std::vector<bool> space(0x110000);
  for (auto r : white_space_ranges()) {
    for (char32_t cp = r.first; cp <= r.last; ++cp) space[cp] = true;
  }
  std::size_t wrong = 0;
  for (char32_t cp = 0; cp < 0x110000; ++cp) {
    std::uint8_t want = 0;
    switch (general_category(cp)) {
      case GC::kLu:
      case GC::kLt: want = kPropLetter | kPropUpperish; break;
      case GC::kLl: want = kPropLetter | kPropLowerish; break;
      case GC::kLm:
      case GC::kLo: want = kPropLetter | kPropUpperish | kPropLowerish; break;
      case GC::kMn:
      case GC::kMc:
      case GC::kMe: want = kPropMark | kPropUpperish | kPropLowerish; break;
      case GC::kNd:
      case GC::kNl:
      case GC::kNo: want = kPropNumber; break;
      default: break;
    }
    if (space[cp]) want |= kPropSpace;
    if (props(cp) != want && ++wrong <= 5) CHECK_MESSAGE(false, "U+", std::hex, unsigned(cp));
  }
  CHECK(wrong == 0);
  CHECK(props(0x110000) == 0);
}

TEST_CASE("the property table in the library is the one build_unicode_props makes") {
  using namespace tok::text;
  std::vector<std::uint16_t> stage1;
  std::vector<std::uint8_t> stage2;
  build_unicode_props(stage1, stage2);
  REQUIRE(stage1.size() == 0x1100);
  CHECK(std::equal(stage1.begin(), stage1.end(), kUnicodePropsStage1));
  REQUIRE(stage2.size() == kUnicodePropsStage2Size);
  CHECK(std::equal(stage2.begin(), stage2.end(), kUnicodePropsStage2));
}

TEST_CASE("every character behind a letter-lead byte is a letter of class Lo") {
  // The piece machines read a lead byte of piece_machine::is_letter_lead() as
  // a letter without decoding the character; that holds only while every
  // code point those leads begin is Lo (a letter of both of o200k's cases).
  using namespace tok::text;
  const auto& props = UnicodeProps::get();
  constexpr std::uint8_t kLo = kPropLetter | kPropUpperish | kPropLowerish;
  std::size_t leads = 0;
  for (int b = 0xE0; b <= 0xEF; ++b) {
    if (!piece_machine::is_letter_lead(b)) continue;
    ++leads;
    char32_t first = char32_t(b & 0x0F) << 12;
    for (char32_t cp = first; cp < first + 0x1000; ++cp) {
      CAPTURE(unsigned(cp));
      REQUIRE(general_category(cp) == GeneralCategory::kLo);
      REQUIRE(props(cp) == kLo);
    }
  }
  CHECK(leads == 7);
  for (int b = 0; b < 256; ++b) {
    if (b < 0xE0 || b > 0xEF) CHECK_FALSE(piece_machine::is_letter_lead(b));
  }
}

TEST_CASE("property names: short, long, aggregate, loose, scripts") {
  auto letter = tok::text::property_set("L");
  REQUIRE(letter);
  CHECK(contains(*letter, 0x10D4E));
  CHECK_FALSE(contains(*letter, 0x11BF5));
  for (const char* name : {"Letter", "letter", "LETTER", "l", "Le tt-er"}) {
    auto same = tok::text::property_set(name);
    REQUIRE(same);
    CHECK(same->size() == letter->size());
  }
  auto cased = tok::text::property_set("L&");
  REQUIRE(cased);
  CHECK(contains(*cased, U'a'));
  CHECK_FALSE(contains(*cased, 0x10D4E));
  CHECK(tok::text::property_set("Han"));
  CHECK_FALSE(tok::text::property_set("Hani"));  // short script names stay PCRE2's
  CHECK_FALSE(tok::text::property_set("NoSuchProperty"));
  CHECK(tok::text::complement(tok::text::complement(*letter)).size() == letter->size());
}

TEST_CASE("a Unicode 16.0 letter is matched by \\p{L} in a user pattern") {
  CHECK(pieces(R"(\p{L}+)", "a" + kGaray + kTulu + "!") == Pieces{"a" + kGaray + kTulu, "!"});
  CHECK(pieces(R"(\pL+)", kGaray + "!") == Pieces{kGaray, "!"});
  CHECK(pieces(R"(\p{^L}+)", "!?" + kGaray) == Pieces{"!?", kGaray});
  CHECK(pieces(R"(\P{L}+)", "!?" + kGaray) == Pieces{"!?", kGaray});
  CHECK(pieces(R"([\p{L}\d]+)", kGaray + kSunuwar + "!") == Pieces{kGaray + kSunuwar, "!"});
  // Negated inside a class: every code point not a letter.
  CHECK(pieces(R"([\P{L}x]+)", "!x" + kGaray + "?") == Pieces{"!x", kGaray, "?"});
  CHECK(pieces(R"([^\p{L}]+)", "!" + kTulu + "?") == Pieces{"!", kTulu, "?"});
  CHECK(pieces(R"(\p{N}+)", "a" + kSunuwar + kGurung + "1") ==
        Pieces{"a", kSunuwar + kGurung + "1"});
}

TEST_CASE("\\s, \\d and \\w mean what they mean to the references") {
  // \s is White_Space: not U+180E (PCRE2's \s has it), but U+0085 and U+3000.
  CHECK(pieces(R"(\s+)",
               "a\xe1\xa0\x8e"
               "b") == Pieces{"a\xe1\xa0\x8e"
                              "b"});
  CHECK(pieces(R"(\s+)",
               "a\xc2\x85\xe3\x80\x80"
               "b") == Pieces{"a", "\xc2\x85\xe3\x80\x80", "b"});
  CHECK(pieces(R"(\S+)", "a\xe1\xa0\x8e b") == Pieces{"a\xe1\xa0\x8e", " ", "b"});
  CHECK(pieces(R"([\S]+)", "a\xe1\xa0\x8e b") == Pieces{"a\xe1\xa0\x8e", " ", "b"});
  // \d is Nd, 16.0 digits included; not other numbers (U+00BD).
  CHECK(pieces(R"(\d+)", kSunuwar + "1\xc2\xbd") == Pieces{kSunuwar + "1", "\xc2\xbd"});
  CHECK(pieces(R"(\D+)", "x" + kGurung) == Pieces{"x", kGurung});
  // \w is UTS #18's word: marks (U+0301) and Nd; not No (U+00BD), which
  // PCRE2 10.42's \w (L, N, '_') takes.
  CHECK(pieces(R"(\w+)", "e\xcc\x81_1\xc2\xbd") == Pieces{"e\xcc\x81_1", "\xc2\xbd"});
  CHECK(pieces(R"([^\W]+)", "e\xcc\x81!" + kGaray) == Pieces{"e\xcc\x81", "!", kGaray});
}

TEST_CASE("an invalid pattern's error names the user's pattern and offset") {
  auto bad = PreTokenizer::from_regex(R"(\p{L}\s(a)");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("at offset 9 of pattern '\\p{L}\\s(a'") != std::string::npos);
  auto unknown = PreTokenizer::from_regex(R"(x\p{NoSuchThing})");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().message.find("NoSuchThing") != std::string::npos);
}
