// Segmenter: user-perceived characters (grapheme clusters) and words, by
// ICU's BreakIterator (UAX #29, with ICU's dictionaries for Thai, Lao,
// Khmer, Burmese, Chinese and Japanese). These are the denominators of the
// compare metrics: "characters" per token and tokens per word (fertility).
// Text is read in place as UTF-8 through a UText, so every boundary is a
// byte offset into the caller's string. Ill-formed UTF-8 reads as U+FFFD.
//
// Most text never reaches ICU: fragments of "simple" code points (ASCII,
// Latin, Greek, Cyrillic, Arabic, the Indic scripts, Hangul and the like,
// with their combining marks) are counted by hand with exactly ICU's
// results (simple_segment.hpp), runs of simple ASCII 64 bytes at a time
// (ascii_segment.hpp); the *_icu functions are the plain ICU reference the
// tests compare with.
//
// A Segmenter owns ICU iterators with mutable state: one per thread.
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

#include "compare/word_bits.hpp"
#include "core/result.hpp"

namespace tok::compare {

class Segmenter {
 public:
  static Result<Segmenter> create();
  Segmenter(Segmenter&&) noexcept;
  Segmenter& operator=(Segmenter&&) noexcept;
  ~Segmenter();

  // Grapheme clusters of `text`, and its words (as word_spans) in `words`,
  // in one pass.
  std::size_t segment(std::string_view text, WordBits& words);
  // The same with the words as spans appended to `words`.
  std::size_t segment(std::string_view text, std::vector<ByteSpan>& words);
  // Number of grapheme clusters (ICU character BreakIterator).
  std::size_t count_graphemes(std::string_view text);
  // Byte spans of the words of `text`: segments of the word BreakIterator
  // whose rule status is not UBRK_WORD_NONE (so spaces and punctuation are
  // not words; letters, numbers, kana and ideographs are). Appends to out.
  void word_spans(std::string_view text, std::vector<ByteSpan>& out);
  std::size_t count_words(std::string_view text);

  // The same from ICU alone, for every byte of text.
  std::size_t count_graphemes_icu(std::string_view text);
  void word_spans_icu(std::string_view text, std::vector<ByteSpan>& out);

 private:
  struct State;
  // ICU over text[begin, end), a span between safe points.
  std::size_t segment_icu(std::string_view text, std::size_t begin, std::size_t end,
                          WordBits& words);
  explicit Segmenter(std::unique_ptr<State> s);
  std::unique_ptr<State> s_;
};

}  // namespace tok::compare
