// Property tests: hand scanners equal PCRE2 on large random text, pieces tile
// the input, and splitting at safe_boundary() changes nothing.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "random_text.hpp"
#include "text/pretokenizer.hpp"

using tok::text::PreTokenizer;
using Pieces = std::vector<std::string_view>;

namespace {

constexpr const char* kNames[] = {"gpt2", "cl100k", "o200k", "llama3", "qwen2"};

Pieces pieces(const PreTokenizer& pt, std::string_view text) {
  Pieces out;
  pt.split(text, [&](std::string_view p) { out.push_back(p); });
  return out;
}

Pieces regex_pieces(const PreTokenizer& pt, std::string_view text) {
  Pieces out;
  pt.split_with_regex(text, [&](std::string_view p) { out.push_back(p); });
  return out;
}

// Where two piece lists first differ, with a little context, for the report.
std::string first_difference(const Pieces& a, const Pieces& b) {
  std::size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  std::string out = "at piece " + std::to_string(i) + ":";
  auto show = [](const Pieces& ps, std::size_t k) {
    std::string s = "-";
    if (k < ps.size()) s.assign("'").append(ps[k]).append("'");
    return s;
  };
  for (std::size_t k = i > 2 ? i - 2 : 0; k < i + 3; ++k) {
    out.append("\n  [").append(std::to_string(k)).append("] ");
    out.append(show(a, k)).append(" vs ").append(show(b, k));
  }
  return out;
}

bool tiles(const Pieces& ps, std::string_view text) {
  std::size_t at = 0;
  for (auto p : ps) {
    if (p.empty() || p.data() != text.data() + at) return false;
    at += p.size();
  }
  return at == text.size();
}

}  // namespace

TEST_CASE("hand scanners equal PCRE2 on random text") {
  tok::text::testing::RandomText gen(12345);
  std::string text = gen.make(1'200'000);
  for (const char* name : kNames) {
    auto pt = PreTokenizer::named(name);
    REQUIRE(pt.ok());
    Pieces hand = pieces(*pt, text), regex = regex_pieces(*pt, text);
    INFO("pattern: " << name);
    CHECK(tiles(hand, text));
    CHECK(tiles(regex, text));
    INFO(first_difference(hand, regex));
    CHECK(hand == regex);
  }
}

TEST_CASE("a general regex tiles its input, invalid bytes included") {
  tok::text::testing::RandomText gen(7);
  std::string text = gen.make(100'000);
  for (const char* pattern : {R"(\p{L}+)", "x*", R"(\s+|\d)", R"((?i)the)"}) {
    auto pt = PreTokenizer::from_regex(pattern);
    REQUIRE(pt.ok());
    CAPTURE(pattern);
    CHECK(tiles(pieces(*pt, text), text));
  }
}

TEST_CASE("splitting at safe_boundary gives the pieces of the whole") {
  std::size_t checked = 0;
  for (const char* name : kNames) {
    auto pt = PreTokenizer::named(name);
    REQUIRE(pt.ok());
    INFO("pattern: " << name);
    for (unsigned seed = 0; seed < 150; ++seed) {
      tok::text::testing::RandomText gen(seed);
      // Short texts with many newlines before letters, so boundaries are common.
      std::string text = gen.make(600);
      Pieces whole = pieces(*pt, text);
      Pieces whole_regex = regex_pieces(*pt, text);
      REQUIRE(whole == whole_regex);
      std::size_t from = 0;
      for (;;) {
        std::size_t p = pt->safe_boundary(text, from, 1'000'000);
        if (p >= text.size()) break;
        REQUIRE(p > from);
        std::string_view s(text);
        Pieces parts = pieces(*pt, s.substr(0, p));
        Pieces right = pieces(*pt, s.substr(p));
        parts.insert(parts.end(), right.begin(), right.end());
        CAPTURE(p);
        REQUIRE(std::vector<std::string>(parts.begin(), parts.end()) ==
                std::vector<std::string>(whole.begin(), whole.end()));
        // The reference engine agrees that p is a clean cut.
        Pieces rparts = regex_pieces(*pt, s.substr(0, p));
        Pieces rright = regex_pieces(*pt, s.substr(p));
        rparts.insert(rparts.end(), rright.begin(), rright.end());
        REQUIRE(std::vector<std::string>(rparts.begin(), rparts.end()) ==
                std::vector<std::string>(whole.begin(), whole.end()));
        ++checked;
        from = p;
      }
    }
  }
  MESSAGE("safe boundaries checked: " << checked);
  CHECK(checked > 500);
}

TEST_CASE("safe_boundary stays in (from, from + limit] or returns size") {
  auto pt = PreTokenizer::named("o200k");
  REQUIRE(pt.ok());
  std::string text = "ab.\nCd e.\nFg\n";
  CHECK(pt->safe_boundary(text, 0, 100) == 4);
  CHECK(pt->safe_boundary(text, 4, 100) == 10);
  CHECK(pt->safe_boundary(text, 4, 6) == 10);
  CHECK(pt->safe_boundary(text, 4, 5) == text.size());
  CHECK(pt->safe_boundary(text, 10, 100) == text.size());  // a last "\n" is not looked at
  CHECK(pt->safe_boundary(text, text.size(), 100) == text.size());
  // Before a newline: after an ASCII letter or digit, never at `from` itself,
  // and not after punctuation, a space or a non-ASCII letter.
  CHECK(pt->safe_boundary("    x = 1\n    y", 0, 100) == 9);
  CHECK(pt->safe_boundary("    x = 1\n    y", 9, 100) == 15);  // none after from
  CHECK(pt->safe_boundary("f(x);\n  g(y);\n  else\n  h", 0, 100) == 20);
  CHECK(pt->safe_boundary("a.\n b;\n c \n d\xc3\xa9\n e", 0, 100) == 18);  // none
  CHECK(pt->safe_boundary("x \nA", 0, 100) ==
        4);                                      // size: none found  // space before '\n': not safe
  CHECK(pt->safe_boundary("\nA", 0, 100) == 2);  // nothing before '\n'
  CHECK(pt->safe_boundary("", 0, 100) == 0);
}

// The scanners find the end of ASCII letter and space runs sixteen bytes at a
// time, with a byte loop for the last fifteen bytes of a text: runs of every
// length around those sizes, at the end of the text and before every kind of
// character, must still split as PCRE2 does.
TEST_CASE("long ASCII letter and space runs equal PCRE2") {
  constexpr std::string_view kPrefixes[] = {"", " ", "x", "X", "\n", "'", ".", "\xc3\xa9"};
  constexpr std::string_view kSuffixes[] = {
      "",  " ", "\xc3\xa9", "\xc3\x89", "\n",           "'s", "'LL",     "1",
      "A", "a", "  x",      "\t",       "\xe2\x80\x83", ".",  "\xcc\x81"};
  auto run = [](int kind, std::size_t n) {
    std::string s;
    for (std::size_t i = 0; i < n; ++i) {
      switch (kind) {
        case 0: s += char('a' + i % 26); break;  // lower case
        case 1: s += char('A' + i % 26); break;  // upper case
        case 2: s += i % 7 == 3 ? char('A' + i % 26) : char('a' + i % 26); break;
        case 3: s += i + 1 < n ? 'A' : 'b'; break;     // capitals, then one lower
        case 4: s += ' '; break;                       // spaces
        default: s += i % 9 == 8 ? '\n' : ' '; break;  // spaces and newlines
      }
    }
    return s;
  };
  // One text, the cases separated by an invalid byte: each valid run is split
  // as a text of its own, so every case also ends a text.
  std::string text;
  for (int kind = 0; kind < 6; ++kind) {
    for (std::size_t n = 1; n <= 50; ++n) {
      for (auto pre : kPrefixes) {
        for (auto suf : kSuffixes) text.append(pre).append(run(kind, n)).append(suf).append("\xff");
      }
    }
  }
  for (const char* name : kNames) {
    auto pt = PreTokenizer::named(name);
    REQUIRE(pt.ok());
    INFO("pattern: " << name);
    Pieces hand = pieces(*pt, text), regex = regex_pieces(*pt, text);
    INFO(first_difference(hand, regex));
    CHECK(hand == regex);
  }
}
