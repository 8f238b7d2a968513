// Differential tests: Segmenter's fast path (simple_segment.hpp) against ICU
// alone, on every short string over tricky alphabets, on random strings and
// on the shipped samples. Graphemes, word spans and continued words must be
// identical.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "compare/ascii_segment.hpp"
#include "compare/metrics.hpp"
#include "compare/segment.hpp"
#include "compare/simple_segment.hpp"

using tok::compare::ByteSpan;
using tok::compare::Segmenter;

namespace {

// Word-break and grapheme classes that matter, simple and not.
const std::vector<std::string> kSimpleAlphabet = {"a",
                                                  "Z",
                                                  "\xC3\xA9" /* é */,
                                                  "\xD0\xB4" /* д */,
                                                  "\xD8\xB3" /* Arabic sin */,
                                                  "1",
                                                  "\xD9\xA3" /* Arabic-indic 3 */,
                                                  "_",
                                                  ".",
                                                  "'",
                                                  "\xE2\x80\x99" /* ’ */,
                                                  ":",
                                                  ",",
                                                  ";",
                                                  "\xC2\xB7" /* middle dot */,
                                                  " ",
                                                  "\t",
                                                  "\r",
                                                  "\n",
                                                  "-",
                                                  "\"",
                                                  "!",
                                                  "\xC2\xA0" /* NBSP */,
                                                  "\xE2\x80\xA6" /* … */,
                                                  "\xCD\xBE" /* Greek question mark (MidNum) */,
                                                  "@",
                                                  "#",
                                                  "/"};
const std::vector<std::string> kHardAlphabet = {"\xCC\x81" /* combining acute */,
                                                "\xE2\x80\x8D" /* ZWJ */,
                                                "\xE0\xB8\x81" /* Thai ko kai */,
                                                "\xE4\xB8\xAD" /* 中 */,
                                                "\xE3\x81\x82" /* あ */,
                                                "\xE3\x82\xA2" /* ア */,
                                                "\xED\x95\x9C" /* 한 */,
                                                "\xD7\x90" /* Hebrew alef */,
                                                "\xE3\x80\x80" /* ideographic space */,
                                                "\xF0\x9F\x98\x80" /* 😀 */,
                                                "\x0B" /* VT */,
                                                "\xFF" /* ill-formed */,
                                                "\xE0\xA4\x95" /* Devanagari ka */,
                                                "\xE0\xA5\x8D" /* virama */,
                                                "\xC2\xAD" /* soft hyphen */,
                                                "\xE2\x80\xBF" /* undertie (ExtendNumLet) */,
                                                "\xF0\x9F\x87\xA9" /* regional indicator D */,
                                                "\xE2\x80\xAF" /* narrow NBSP */,
                                                "\xC2\x85" /* NEL */};

// Marks and the Indic conjunct rule's roles: consonants of linking scripts
// (Devanagari, Bengali, Malayalam) and not (Tamil), viramas, nukta (a
// combining class), vowel signs (SpacingMark and Extend, class 0), ZWJ,
// ZWNJ, Arabic and Latin combining marks, next to letters, spaces, tabs
// and line ends.
const std::vector<std::string> kMarkAlphabet = {"\xE0\xA4\x95" /* ka */,
                                                "\xE0\xA4\xB7" /* ssa */,
                                                "\xE0\xA5\x8D" /* virama */,
                                                "\xE0\xA4\xBC" /* nukta */,
                                                "\xE0\xA4\xBE" /* aa sign */,
                                                "\xE0\xA5\x81" /* u sign */,
                                                "\xE0\xA4\x82" /* anusvara */,
                                                "\xE0\xA6\x95" /* Bengali ka */,
                                                "\xE0\xA7\x8D" /* Bengali virama */,
                                                "\xE0\xAE\x95" /* Tamil ka */,
                                                "\xE0\xAF\x8D" /* Tamil pulli */,
                                                "\xE0\xB4\x95" /* Malayalam ka */,
                                                "\xE0\xB5\x8D" /* Malayalam virama */,
                                                "\xE2\x80\x8D" /* ZWJ */,
                                                "\xE2\x80\x8C" /* ZWNJ */,
                                                "\xD9\x8E" /* Arabic fatha */,
                                                "\xCC\x81" /* acute */,
                                                "a",
                                                "1",
                                                " ",
                                                "\t",
                                                "\n",
                                                ".",
                                                "_",
                                                "\xEA\xB0\x95" /* Hangul gang */,
                                                "\xEC\x9D\x80" /* Hangul eun */};

std::string fmt_hex(unsigned char c) {
  const char* d = "0123456789abcdef";
  return {d[c >> 4], d[c & 15], ' '};
}

Segmenter make() {
  auto s = Segmenter::create();
  REQUIRE(s.ok());
  return std::move(*s);
}

// Fast and ICU agree on text; prints the text when they do not.
bool agree(Segmenter& s, const std::string& text) {
  std::vector<ByteSpan> fast, icu;
  std::size_t g_fast = s.segment(text, fast);
  std::size_t g_icu = s.count_graphemes_icu(text);
  s.word_spans_icu(text, icu);
  bool same = g_fast == g_icu && fast.size() == icu.size();
  for (std::size_t i = 0; same && i < fast.size(); ++i) {
    same = fast[i].begin == icu[i].begin && fast[i].end == icu[i].end;
  }
  if (!same) {
    std::string hex;
    for (unsigned char c : text) hex += fmt_hex(c);
    INFO("text bytes: " << hex << " graphemes " << g_fast << " vs ICU " << g_icu << ", words "
                        << fast.size() << " vs ICU " << icu.size());
    CHECK(same);
  }
  return same;
}

}  // namespace

TEST_CASE("fast segmentation: hand-checked cases") {
  Segmenter s = make();
  std::vector<ByteSpan> w;
  CHECK(s.segment("don't stop", w) == 10);
  CHECK(w.size() == 2);
  w.clear();
  CHECK(s.segment("a\r\nb", w) == 3);
  CHECK(w.size() == 2);
  w.clear();
  s.segment("3.14 e.g. a:b x_y _ __ 1,000", w);
  // 3.14 | e.g | a | b | x_y | __ | 1,000 ("_" alone is not a word for ICU)
  CHECK(w.size() == 7);
  for (const char* t : {"don't stop", "3.14 e.g. a:b x_y _ __ 1,000", "a\r\nb", "", " ", "\n\n"}) {
    CHECK(agree(s, t));
  }
}

TEST_CASE("fast segmentation equals ICU on every short string") {
  Segmenter s = make();
  std::vector<std::string> all = kSimpleAlphabet;
  all.insert(all.end(), kHardAlphabet.begin(), kHardAlphabet.end());
  std::size_t failures = 0;
  // Every string of up to 3 symbols over everything, up to 4 over the simple
  // classes (the rules look at most two code points to each side).
  auto each = [&](const std::vector<std::string>& alpha, int len, auto&& self,
                  std::string& cur) -> void {
    if (len == 0) {
      if (!agree(s, cur) && ++failures > 10) FAIL("too many differences");
      return;
    }
    for (const auto& a : alpha) {
      std::size_t at = cur.size();
      cur += a;
      self(alpha, len - 1, self, cur);
      cur.resize(at);
    }
  };
  std::string cur;
  for (int len = 1; len <= 3; ++len) each(all, len, each, cur);
  each(kSimpleAlphabet, 4, each, cur);
  each(kMarkAlphabet, 4, each, cur);
  CHECK(failures == 0);
}

std::string utf8(char32_t c) {
  std::string out;
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
  return out;
}

TEST_CASE("fast segmentation equals ICU for every ASCII string of up to 3 bytes") {
  // Catches ICU's tailorings of UAX #29 ('@' is ALetter, ':' is not MidLetter).
  Segmenter s = make();
  std::size_t failures = 0;
  std::string t(3, ' ');
  for (int a = 0; a < 128 && failures < 10; ++a) {
    if (!agree(s, std::string(1, static_cast<char>(a)))) ++failures;
    for (int b = 0; b < 128; ++b) {
      t.resize(2);
      t[0] = static_cast<char>(a);
      t[1] = static_cast<char>(b);
      if (!agree(s, t)) ++failures;
      if (a < 32 && a != '\t' && a != '\r' && a != '\n') continue;  // rarer controls: pairs only
      t.resize(3);
      for (int c = 0; c < 128; ++c) {
        t[2] = static_cast<char>(c);
        if (!agree(s, t)) ++failures;
      }
    }
  }
  CHECK(failures == 0);
}

TEST_CASE("fast segmentation equals ICU for every code point below U+3000 in context") {
  // Each code point next to letters, digits, '_', '.', ',', ':', '\'', '@',
  // spaces and line ends, and doubled: its class must be what ICU does.
  Segmenter s = make();
  const std::vector<std::string> ctx = {"", "a", "1", "_", ".", ",", "'", " ", "\r", "\n", "@"};
  std::size_t failures = 0;
  for (char32_t c = 0; c < tok::compare::detail::SimpleClasses::kLimit && failures < 10; ++c) {
    if (c >= 0xD800 && c <= 0xDFFF) continue;
    std::string u = utf8(c);
    for (const auto& x : ctx) {
      for (const auto& y : ctx) {
        if (!agree(s, x + u + y)) ++failures;
      }
    }
    if (!agree(s, u + u) || !agree(s, "a" + u + "a" + u + "a") ||
        !agree(s, "1" + u + "1" + u + "1")) {
      ++failures;
    }
    // Marks and conjuncts: after a consonant, between a virama and a
    // consonant, after a tab, at the start of a line.
    const char* ka = "\xE0\xA4\x95";
    const char* virama = "\xE0\xA5\x8D";
    for (const std::string& t :
         {ka + u + virama + ka, std::string(ka) + virama + u + ka, std::string(ka) + virama + u,
          u + virama + ka, "\t" + u + "a", "a\n" + u + "a", "a" + u + u + ".a"}) {
      if (!agree(s, t)) ++failures;
    }
  }
  CHECK(failures == 0);
}

TEST_CASE("fast segmentation equals ICU for every Hangul syllable in context") {
  Segmenter s = make();
  const std::vector<std::string> ctx = {
      "",         "a",           "1", "_", ".", "'", " ", "\n", "\xEA\xB0\x95",
      "\xCC\x81", "\xE3\x84\xB1" /* compatibility jamo */};
  std::size_t failures = 0;
  for (char32_t c = 0xAC00; c <= 0xD7A3 && failures < 10; ++c) {
    std::string u = utf8(c);
    // Every syllable next to everything would take a minute: all of them
    // in a few contexts, every 37th in all.
    if ((c - 0xAC00) % 37 == 0) {
      for (const auto& x : ctx) {
        for (const auto& y : ctx) {
          if (!agree(s, x + u + y)) ++failures;
        }
      }
    }
    if (!agree(s, u + u + " " + u + "a") || !agree(s, "a " + u + "." + u)) ++failures;
  }
  CHECK(failures == 0);
}

TEST_CASE("fast segmentation equals ICU on random strings") {
  Segmenter s = make();
  std::mt19937 rng(20261201);
  std::size_t failures = 0;
  for (int round = 0; round < 20000 && failures < 10; ++round) {
    // Mostly simple text, sometimes a hard code point: both paths and their seams.
    bool hard = round % 3 == 0;
    std::string text;
    int len = 1 + static_cast<int>(rng() % 40);
    for (int i = 0; i < len; ++i) {
      if (round % 3 == 1) {
        text += kMarkAlphabet[rng() % kMarkAlphabet.size()];
      } else if (hard && rng() % 6 == 0) {
        text += kHardAlphabet[rng() % kHardAlphabet.size()];
      } else {
        text += kSimpleAlphabet[rng() % kSimpleAlphabet.size()];
      }
    }
    if (!agree(s, text)) ++failures;
  }
  CHECK(failures == 0);
}

TEST_CASE("fast segmentation equals ICU on the shipped samples") {
  Segmenter s = make();
  namespace fs = std::filesystem;
  std::string root = TOK_VOCAB_DIR_FOR_TESTS "/samples";
  std::size_t files = 0;
  for (const char* sub : {"", "/code", "/data"}) {
    for (const auto& e : fs::directory_iterator(root + sub)) {
      if (!e.is_regular_file()) continue;
      std::ifstream in(e.path(), std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      std::string text = ss.str();
      INFO(e.path().string());
      CHECK(agree(s, text));
      // Continued words for a made-up tokenization (every 3 bytes) agree too.
      std::vector<ByteSpan> fast, icu, tokens;
      s.segment(text, fast);
      s.word_spans_icu(text, icu);
      for (std::size_t b = 0; b < text.size(); b += 3)
        tokens.push_back({b, std::min(b + 3, text.size())});
      CHECK(tok::compare::count_continued_words(fast, tokens) ==
            tok::compare::count_continued_words(icu, tokens));
      ++files;
    }
  }
  CHECK(files >= 40);
}

TEST_CASE("the ASCII kernel's classes are ICU's") {
  // Else Segmenter quietly runs without it: the tests below would pass, slower.
  CHECK(tok::compare::detail::ascii_kernel_matches_icu());
}

TEST_CASE("ASCII kernel equals ICU on long random ASCII") {
  // Runs of 32+ bytes between safe points take the kernel: words and CR LF
  // pairs across its 64-byte blocks, at every alignment.
  Segmenter s = make();
  std::mt19937 rng(64);
  const std::string alphabet = "aZ@09_.'\",;: \r\n\t-!#x";
  std::size_t failures = 0;
  for (int round = 0; round < 5000 && failures < 10; ++round) {
    std::string text;
    std::size_t len = 32 + rng() % 300;
    // Long letter runs (a word across blocks) as well as mixed bytes.
    bool runs = round % 2 == 0;
    while (text.size() < len) {
      char c = alphabet[rng() % alphabet.size()];
      text.append(runs ? 1 + rng() % 70 : 1, c);
    }
    if (!agree(s, text)) ++failures;
    // The same after a non-ASCII byte: the run starts mid-text.
    if (!agree(s, "\xC3\xA9\n" + text + "\xC3\xA9")) ++failures;
  }
  CHECK(failures == 0);
}

TEST_CASE("ASCII kernel: hand-checked words across blocks") {
  Segmenter s = make();
  std::string a(70, 'a'), d(70, '1');
  std::vector<ByteSpan> w;
  // A 70-letter word, "e.g.", a 70-digit number with commas, "x_y", lone '_'.
  std::string text = a + " e.g. " + d + ",000 x_y _ __\r\n" + a + "." + a + "\n";
  CHECK(s.segment(text, w) == text.size() - 1);  // CR LF is one grapheme
  REQUIRE(w.size() == 6);
  CHECK(w[0].end - w[0].begin == 70);
  CHECK(w[2].end - w[2].begin == 74);
  CHECK(w[5].end - w[5].begin == 141);  // letters '.' letters: one word
  CHECK(agree(s, text));
}

TEST_CASE("safe points") {
  using tok::compare::detail::is_safe_point;
  using tok::compare::detail::next_safe_point;
  CHECK(is_safe_point("a b", 2));
  CHECK(!is_safe_point("a  b", 2));
  CHECK(!is_safe_point("a \xC3\xA9", 2));  // a non-ASCII byte may be Extend
  CHECK(is_safe_point("a\n\xCC\x81", 2));  // nothing joins across LF
  CHECK(next_safe_point("ab cd", 0) == 3);
  CHECK(next_safe_point("ab  ", 0) == 4);
}
