// Random texts for property tests, built from fragments that stress the split
// patterns: every whitespace kind, newlines and \r\n, apostrophes and
// contractions in all cases, letters of many scripts and cases, marks, digits
// of several scripts, punctuation, '/', emoji, invalid bytes, and random code
// points. Deterministic for a seed.
#pragma once

#include <random>
#include <string>
#include <string_view>

#include "text/unicode_classes.hpp"

namespace tok::text::testing {

inline void append_utf8(std::string& s, char32_t cp) {
  if (cp < 0x80) {
    s += char(cp);
  } else if (cp < 0x800) {
    s += char(0xC0 | (cp >> 6));
    s += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    s += char(0xE0 | (cp >> 12));
    s += char(0x80 | ((cp >> 6) & 0x3F));
    s += char(0x80 | (cp & 0x3F));
  } else {
    s += char(0xF0 | (cp >> 18));
    s += char(0x80 | ((cp >> 12) & 0x3F));
    s += char(0x80 | ((cp >> 6) & 0x3F));
    s += char(0x80 | (cp & 0x3F));
  }
}

class RandomText {
 public:
  explicit RandomText(unsigned seed, bool invalid_bytes = true)
      : rng_(seed), invalid_bytes_(invalid_bytes) {}

  std::string make(std::size_t bytes) {
    std::string s;
    while (s.size() < bytes) append_fragment(s);
    return s;
  }

 private:
  void append_fragment(std::string& s) {
    static constexpr std::string_view kFragments[] = {
        " ",
        " ",
        "  ",
        "   ",
        "\t",
        "\n",
        "\n",
        "\n\n",
        "\r\n",
        "\r",
        " \n",
        "\n ",
        "\v",
        "\f",
        "'",
        "'s",
        "'S",
        "'t",
        "'re",
        "'RE",
        "'Ve",
        "'m",
        "'ll",
        "'LL",
        "'lL",
        "'d",
        "'D",
        "'\xc5\xbf",
        "'x",
        "''",
        "a",
        "b",
        "z",
        "the",
        "The",
        "THE",
        "Hello",
        "world",
        "HTTPServer",
        "CamelCase",
        "I",
        "s",
        "caf\xc3\xa9",
        "na\xc3\xafve",
        "e\xcc\x81",
        "\xcc\x81",
        "\xcc\x81\xcc\x82",
        "\xe0\xa4\x95\xe0\xa4\xbf",
        "\xd0\x9f\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82",
        "\xce\xa9\xce\xbc\xce\xad\xce\xb3\xce\xb1",
        "\xe6\x97\xa5\xe6\x9c\xac",
        "\xe4\xb8\xad\xe6\x96\x87",
        "\xe3\x81\xae",
        "\xea\xb0\x80",
        "\xd8\xa7\xd9\x84\xd8\xb9\xd8\xb1\xd8\xa8\xd9\x8a\xd8\xa9",
        "\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d",
        "\xc7\x85",
        "\xc7\x84",
        "\xca\xb0",
        "\xe1\xb4\xac",  // Lt, Lu, Lm, Lm
        // Unicode 16.0 letters (U+10D4E Lm, U+1138E Lo) and digits (U+11BF5, U+16133).
        "\xf0\x90\xb5\x8e",
        "\xf0\x91\x8e\x8e",
        "\xf0\x91\xaf\xb5",
        "\xf0\x96\x84\xb3",
        "0",
        "1",
        "42",
        "123",
        "2024",
        "3.14",
        "\xd9\xa1\xd9\xa2",
        "\xe2\x85\xa0",
        "\xc2\xbd",
        "\xe2\x91\xa0",
        ".",
        ",",
        "!",
        "?",
        "...",
        "-",
        "--",
        "(",
        ")",
        "\"",
        "/",
        "//",
        "<|>",
        "#",
        "$",
        "%",
        "_",
        "@",
        "\xe2\x80\x94",
        "\xc2\xab",
        "\xe3\x80\x82",
        "\xc2\xa0",
        "\xe3\x80\x80",
        "\xe2\x80\xa8",
        "\xe2\x80\xa9",
        "\xc2\x85",
        "\xe1\x9a\x80",
        "\xe2\x80\x83",
        "\xe2\x80\xaf",
        "\xe2\x81\x9f",
        "\xe1\xa0\x8e",
        "\xe2\x80\x8b",
        "\xef\xbb\xbf",
        "\xf0\x9f\x98\x80",
        "\xf0\x9f\x91\x8b\xf0\x9f\x8f\xbd",
        "\xf0\x9f\x87\xab\xf0\x9f\x87\xb7",
        "\xe2\x9d\xa4\xef\xb8\x8f",
        "\xe2\x80\x8d",
        ".\n",
        "a\n",
        "\nThe",
        "\nx",
        "\n/",
        ":\n",
        "\n'",
        "\n1",
    };
    static constexpr std::string_view kInvalid[] = {
        "\xff", "\x80", "\xc3", "\xe2\x80", "\xed\xa0\x80", "\xc0\xaf", "\xf4\x90\x80\x80"};
    unsigned r = rng_() % 100;
    if (r < 80) {
      s += kFragments[rng_() % std::size(kFragments)];
    } else if (r < 97 || !invalid_bytes_) {
      append_utf8(s, random_code_point());
    } else {
      s += kInvalid[rng_() % std::size(kInvalid)];
    }
  }

  // A random assigned, non-surrogate, non-private code point of tok's
  // Unicode tables, characters newer than PCRE2's own tables included.
  char32_t random_code_point() {
    for (;;) {
      unsigned r = rng_() % 10;
      char32_t cp = r < 3 ? rng_() % 0x800 : r < 9 ? rng_() % 0x10000 : rng_() % 0x32400;
      if (cp >= 0xD800 && cp <= 0xDFFF) continue;
      auto category = general_category(cp);
      if (category == GeneralCategory::kCn || category == GeneralCategory::kCo) continue;
      return cp;
    }
  }

  std::mt19937 rng_;
  bool invalid_bytes_;
};

}  // namespace tok::text::testing
