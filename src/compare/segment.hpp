// Segmenter: user-perceived characters (grapheme clusters) and words, by
// ICU's BreakIterator (UAX #29, with ICU's dictionaries for Thai, Lao,
// Khmer, Burmese, Chinese and Japanese). These are the denominators of the
// compare metrics: "characters" per token and tokens per word (fertility).
// Text is read in place as UTF-8 through a UText, so every boundary is a
// byte offset into the caller's string. Ill-formed UTF-8 reads as U+FFFD.
//
// A Segmenter owns ICU iterators with mutable state: one per thread.
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace tok::compare {

struct ByteSpan {
  std::size_t begin = 0;
  std::size_t end = 0;  // one past the last byte
};

class Segmenter {
 public:
  static Result<Segmenter> create();
  Segmenter(Segmenter&&) noexcept;
  Segmenter& operator=(Segmenter&&) noexcept;
  ~Segmenter();

  // Number of grapheme clusters (ICU character BreakIterator).
  std::size_t count_graphemes(std::string_view text);
  // Byte spans of the words of `text`: segments of the word BreakIterator
  // whose rule status is not UBRK_WORD_NONE (so spaces and punctuation are
  // not words; letters, numbers, kana and ideographs are). Appends to out.
  void word_spans(std::string_view text, std::vector<ByteSpan>& out);
  std::size_t count_words(std::string_view text);

 private:
  struct State;
  explicit Segmenter(std::unique_ptr<State> s);
  std::unique_ptr<State> s_;
};

}  // namespace tok::compare
