// Text measures for the `tok show` summary: user-perceived characters
// (extended grapheme clusters) and words, both by ICU's BreakIterator (UAX
// #29), so "é" written as e + U+0301 is one character and "don't" one word.
#pragma once

#include <cstddef>
#include <string_view>

#include "core/result.hpp"

namespace tok::show {

struct TextMeasure {
  std::size_t bytes = 0;
  std::size_t graphemes = 0;  // extended grapheme clusters
  std::size_t words = 0;      // ICU word segments that are words, numbers, kana or ideographs
};

// Invalid UTF-8 bytes count as one U+FFFD character each (ICU's UTF-8 UText
// does that), so measuring never fails on binary input.
Result<TextMeasure> measure_text(std::string_view utf8);

}  // namespace tok::show
