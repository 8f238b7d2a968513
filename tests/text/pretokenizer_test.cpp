// Exact cases for the pre-tokenizer: tiktoken's own pieces (golden, generated
// by tests/data/text/make_golden.py), names and patterns, the regex path,
// invalid UTF-8 and the meaning of \s.
#include <doctest/doctest.h>

#include <cstring>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/utf8.hpp"
#include "text/pretokenizer.hpp"
#include "text/unicode_classes.hpp"
#include "text/unicode_props.hpp"

using tok::text::PreTokenizer;
using tok::text::Scanner;
using Pieces = std::vector<std::string>;

namespace {

Pieces pieces(const PreTokenizer& pt, std::string_view text) {
  Pieces out;
  pt.split(text, [&](std::string_view p) { out.emplace_back(p); });
  return out;
}

Pieces regex_pieces(const PreTokenizer& pt, std::string_view text) {
  Pieces out;
  pt.split_with_regex(text, [&](std::string_view p) { out.emplace_back(p); });
  return out;
}

PreTokenizer named(std::string_view name) {
  auto r = PreTokenizer::named(name);
  REQUIRE_MESSAGE(r.ok(), r.error().message);
  return *r;
}

struct Golden {
  const char* name;
  const char* text;
  std::vector<const char*> pieces;
};

const Golden kGolden[] = {
#include "tiktoken_golden.inc"
};

}  // namespace

TEST_CASE("pieces equal tiktoken's (golden, both engines)") {
  for (const auto& g : kGolden) {
    PreTokenizer pt = named(g.name);
    Pieces want(g.pieces.begin(), g.pieces.end());
    CAPTURE(g.name);
    CAPTURE(g.text);
    CHECK(pieces(pt, g.text) == want);
    CHECK(regex_pieces(pt, g.text) == want);
  }
}

TEST_CASE("exact tiny cases") {
  PreTokenizer gpt2 = named("gpt2"), cl = named("cl100k"), o2 = named("o200k");
  PreTokenizer llama = named("llama3"), qwen = named("qwen2");
  CHECK(pieces(cl, "12345") == Pieces{"123", "45"});
  CHECK(pieces(qwen, "12345") == Pieces{"1", "2", "3", "4", "5"});
  CHECK(pieces(gpt2, "12345") == Pieces{"12345"});
  CHECK(pieces(cl, "I'M") == Pieces{"I", "'M"});
  CHECK(pieces(gpt2, "I'M") == Pieces{"I", "'", "M"});
  CHECK(pieces(o2, "they'LL") == Pieces{"they'LL"});
  CHECK(pieces(cl, "'s") == Pieces{"'s"});
  CHECK(pieces(cl, "a   b") == Pieces{"a", "  ", " b"});
  CHECK(pieces(cl, "a \n\n b") == Pieces{"a", " \n\n", " b"});
  CHECK(pieces(cl, "x\r\ny") == Pieces{"x", "\r\n", "y"});
  CHECK(pieces(gpt2, "x\r\ny") == Pieces{"x", "\r", "\n", "y"});
  CHECK(pieces(cl, "a\tb") == Pieces{"a", "\tb"});
  // tiktoken's \s++$ (cl100k) against the older spelling (llama3).
  CHECK(pieces(cl, "a\n  ") == Pieces{"a", "\n  "});
  CHECK(pieces(llama, "a\n  ") == Pieces{"a", "\n", "  "});
  CHECK(pieces(cl, "a  ") == Pieces{"a", "  "});
  CHECK(pieces(o2, "a\n  ") == Pieces{"a", "\n", "  "});
  CHECK(pieces(o2, "x/\n/y") == Pieces{"x", "/\n/", "y"});
  CHECK(pieces(o2, "HTTPServer") == Pieces{"HTTPServer"});
  CHECK(pieces(o2, "CamelCase") == Pieces{"Camel", "Case"});
  CHECK(pieces(cl, "").empty());
}

TEST_CASE("names, aliases and patterns") {
  CHECK(named("r50k_base").scanner() == Scanner::kGpt2);
  CHECK(named("p50k").name() == "gpt2");
  CHECK(named("cl100k_base").scanner() == Scanner::kCl100k);
  CHECK(named("o200k_base").scanner() == Scanner::kO200k);
  CHECK(named("llama3").scanner() == Scanner::kCl100k);
  CHECK(named("qwen2").scanner() == Scanner::kCl100k);
  CHECK(
      named("cl100k").pattern() ==
      R"('(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s)");
  auto bad = PreTokenizer::named("gpt5");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("o200k") != std::string::npos);
  CHECK(bad.error().message.find("gpt5") != std::string::npos);

  // Every spelling of a named pattern selects its hand scanner.
  for (const char* name : {"gpt2", "cl100k", "o200k", "llama3", "qwen2"}) {
    auto r = PreTokenizer::from_regex(named(name).pattern());
    REQUIRE(r.ok());
    CHECK(r->name() == name);
    CHECK(r->scanner() != Scanner::kRegex);
  }
  auto old_gpt2 = PreTokenizer::from_regex(
      R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)");
  REQUIRE(old_gpt2.ok());
  CHECK(old_gpt2->scanner() == Scanner::kGpt2);
  auto mid_cl100k = PreTokenizer::from_regex(
      R"('(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]++[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+)");
  REQUIRE(mid_cl100k.ok());
  CHECK(mid_cl100k->name() == "llama3");
}

TEST_CASE("general regexes") {
  auto words = PreTokenizer::from_regex("[a-z]+");
  REQUIRE(words.ok());
  CHECK(words->scanner() == Scanner::kRegex);
  CHECK(pieces(*words, "ab12cd") == Pieces{"ab", "12", "cd"});
  CHECK(pieces(*words, "12") == Pieces{"12"});
  // Empty matches advance by one character and leave it to the gap.
  auto empty = PreTokenizer::from_regex("x*");
  REQUIRE(empty.ok());
  CHECK(pieces(*empty,
               "\xc3\xa9"
               "bx") == Pieces{"\xc3\xa9"
                               "b",
                               "x"});
  auto bad = PreTokenizer::from_regex("(a");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("offset") != std::string::npos);
  // $ is the end of text only, not before a final newline.
  auto dollar = PreTokenizer::from_regex(R"(a$|\n)");
  REQUIRE(dollar.ok());
  CHECK(pieces(*dollar, "a\n") == Pieces{"a", "\n"});
  CHECK(PreTokenizer::from_regex("a").value().safe_boundary("a\nb\nc", 0, 100) == 5);
}

// Characters assigned in Unicode 15.0 and later are unassigned in PCRE2
// 10.42's tables; tiktoken and Hugging Face tokenizers classify them by
// Unicode 16.0, as tok's tables do, in the scanners and the regex path alike.
TEST_CASE("Unicode 15 and 16 characters: the scanners and the regex path follow tok's tables") {
  const std::string nag_o = "\xF0\x9E\x93\x90";      // U+1E4D0 NAG MUNDARI LETTER O (Lo, 15.0)
  const std::string kawi_sign = "\xF0\x91\xBC\x82";  // U+11F02 KAWI SIGN REPHA (Lo, 15.0)
  const std::string kannada = "\xE0\xB3\xB3";        // U+0CF3 (Mc, 15.0)
  const std::string garay = "\xF0\x90\xB5\x8E";      // U+10D4E GARAY VOWEL LENGTH MARK (Lm, 16.0)
  const std::string tulu = "\xF0\x91\x8E\x8E";       // U+1138E TULU-TIGALARI LETTER A (Lo, 16.0)
  const std::string sunuwar_5 = "\xF0\x91\xAF\xB5";  // U+11BF5 SUNUWAR DIGIT FIVE (Nd, 16.0)
  const std::string gurung_3 = "\xF0\x96\x84\xB3";   // U+16133 GURUNG KHEMA DIGIT THREE (Nd, 16.0)
  for (const char* name : {"gpt2", "cl100k", "o200k", "llama3", "qwen2"}) {
    PreTokenizer named_pt = named(name);
    // The same pattern, not recognised as named, so it runs on PCRE2.
    auto rx = PreTokenizer::from_regex("(?:" + named_pt.pattern() + ")");
    REQUIRE(rx.ok());
    REQUIRE(rx->scanner() == Scanner::kRegex);
    for (const std::string& text : {"a" + nag_o, " " + nag_o + "x!", kawi_sign + "'s " + nag_o,
                                    "\xE0\xB2\x95" + kannada + "1", garay + "'l", " " + tulu + "'S",
                                    "x" + sunuwar_5 + gurung_3 + "12 " + garay}) {
      CAPTURE(name);
      CAPTURE(text);
      CHECK(pieces(*rx, text) == pieces(named_pt, text));
    }
  }
  CHECK(pieces(named("gpt2"), "a" + nag_o + "!") == Pieces{"a" + nag_o, "!"});
  CHECK(pieces(named("o200k"), "x" + kannada + "!") == Pieces{"x" + kannada, "!"});
  // o200k: a new letter is a word of its own, and "'l" a piece (tiktoken's
  // ids [172,238,113,236,54602]); as an unassigned character it took the "'".
  CHECK(pieces(named("o200k"), garay + "'l") == Pieces{garay, "'l"});
  CHECK(pieces(named("gpt2"), " " + tulu + "!") == Pieces{" " + tulu, "!"});
  CHECK(pieces(named("cl100k"), sunuwar_5 + gurung_3 + "12") ==
        Pieces{sunuwar_5 + gurung_3 + "1", "2"});
  auto letters = PreTokenizer::from_regex("\\p{L}+|\\P{L}+");
  REQUIRE(letters.ok());
  CHECK(pieces(*letters, "a" + nag_o + garay + tulu + "!?") ==
        Pieces{"a" + nag_o + garay + tulu, "!?"});
  auto others = PreTokenizer::from_regex("[^\\p{Letter}]+");
  REQUIRE(others.ok());
  CHECK(pieces(*others, "!" + garay + "?") == Pieces{"!", garay, "?"});
  auto script = PreTokenizer::from_regex("\\p{Nag_Mundari}+");
  REQUIRE(script.ok());
  CHECK(pieces(*script, "a" + nag_o + nag_o) == Pieces{"a", nag_o + nag_o});
  auto garay_script = PreTokenizer::from_regex("\\p{Garay}+");
  REQUIRE(garay_script.ok());
  CHECK(pieces(*garay_script, "a" + garay) == Pieces{"a", garay});
}

TEST_CASE("invalid UTF-8 becomes its own pieces") {
  using tok::text::valid_utf8_prefix;
  CHECK(valid_utf8_prefix("abc") == 3);
  CHECK(valid_utf8_prefix("a\xc3\xa9z") == 4);
  CHECK(valid_utf8_prefix("\xc0\x80") == 0);          // overlong
  CHECK(valid_utf8_prefix("\xe0\x80\xaf") == 0);      // overlong
  CHECK(valid_utf8_prefix("\xed\xa0\x80") == 0);      // surrogate
  CHECK(valid_utf8_prefix("\xf4\x90\x80\x80") == 0);  // above U+10FFFF
  CHECK(valid_utf8_prefix("ab\xf0\x9f\x98") == 2);    // truncated
  CHECK(valid_utf8_prefix("\xf0\x9f\x98\x80") == 4);
  CHECK(valid_utf8_prefix("0123456789abcde\xff") == 15);
  for (const char* name : {"gpt2", "cl100k", "o200k"}) {
    PreTokenizer pt = named(name);
    CHECK(pieces(pt, "a\xff\xfe b") == Pieces{"a", "\xff\xfe", " b"});
    // Each valid run is split on its own: the spaces end their run.
    CHECK(pieces(pt, "x  \x80y") == Pieces{"x", "  ", "\x80", "y"});
    CHECK(regex_pieces(pt, "x  \x80y") == Pieces{"x", "  ", "\x80", "y"});
  }
}

// Byte at a time, the rule as written: the reference for the block scan.
static std::size_t valid_prefix_slow(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    std::size_t len = tok::utf8::valid_char_length(s.substr(i));
    if (len == 0) return i;
    i += len;
  }
  return i;
}

TEST_CASE("valid_utf8_prefix reads nothing past the input, whatever its length") {
  // Exactly sized heap buffers (no terminating NUL after the last byte), so
  // a read one past the end is a sanitizer error, not a quiet read of '\0'.
  std::mt19937 rng(7);
  const std::string pool[] = {
      "a",    " ",    "\n",       "\xc3\xa9",    "\xe4\xb8\xad", "\xf0\x9f\x98\x80",
      "\xff", "\x80", "\xe4\xb8", "\xed\xa0\x80"};
  for (std::size_t n = 0; n <= 130; ++n) {
    for (int variant = 0; variant < 4; ++variant) {
      std::string text;
      while (text.size() < n) {
        // Variant 0 is all ASCII: the block scan runs to the very end.
        const std::string& piece = variant == 0 ? pool[rng() % 3] : pool[rng() % std::size(pool)];
        text += piece;
      }
      text.resize(n);
      auto buf = std::make_unique<char[]>(n == 0 ? 1 : n);
      std::memcpy(buf.get(), text.data(), n);
      std::string_view view(buf.get(), n);
      CAPTURE(n);
      CAPTURE(variant);
      CHECK(tok::text::valid_utf8_prefix(view) == valid_prefix_slow(view));
    }
  }
}

TEST_CASE("\\s is Unicode White_Space, in both engines") {
  const auto& props = tok::text::UnicodeProps::get();
  for (char32_t cp : {0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x2000, 0x2005,
                      0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000}) {
    CAPTURE(int(cp));
    CHECK((props(cp) & tok::text::kPropSpace) != 0);
  }
  for (char32_t cp : {0x1C, 0x1F, 0x180E, 0x200B, 0xFEFF, 0x00AD}) {
    CAPTURE(int(cp));
    CHECK((props(cp) & tok::text::kPropSpace) == 0);
  }
  CHECK((props(0x0301) & tok::text::kPropMark) != 0);
  CHECK((props(0x01C5) & tok::text::kPropUpperish) != 0);  // Lt
  CHECK((props(0x0661) & tok::text::kPropNumber) != 0);
  // U+180E between letters: not a space for either engine.
  for (const char* name : {"gpt2", "cl100k", "o200k"}) {
    PreTokenizer pt = named(name);
    std::string text = "a \xe1\xa0\x8e\xe1\xa0\x8e b\xc2\x85\xc2\x85z";
    CHECK(pieces(pt, text) == regex_pieces(pt, text));
  }
}

TEST_CASE("the property table matches tok's Unicode tables for every code point") {
  using tok::text::GeneralCategory;
  const auto& props = tok::text::UnicodeProps::get();
  const auto spaces = tok::text::white_space_set();
  std::size_t next_space = 0;
  for (char32_t cp = 0; cp < 0x110000; ++cp) {
    int c = static_cast<int>(tok::text::general_category(cp));
    bool letter = c <= static_cast<int>(GeneralCategory::kLo);
    bool mark =
        c >= static_cast<int>(GeneralCategory::kMn) && c <= static_cast<int>(GeneralCategory::kMe);
    bool number =
        c >= static_cast<int>(GeneralCategory::kNd) && c <= static_cast<int>(GeneralCategory::kNo);
    while (next_space < spaces.size() && spaces[next_space].last < cp) ++next_space;
    bool space = next_space < spaces.size() && spaces[next_space].first <= cp;
    std::uint8_t p = props(cp);
    if (letter != bool(p & tok::text::kPropLetter) || mark != bool(p & tok::text::kPropMark) ||
        number != bool(p & tok::text::kPropNumber) || space != bool(p & tok::text::kPropSpace)) {
      FAIL("property mismatch at U+" << std::hex << std::uint32_t(cp));
    }
  }
}
