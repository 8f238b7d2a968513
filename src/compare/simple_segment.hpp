// The exact fast path of Segmenter: grapheme clusters and words of "simple"
// text counted by hand, with ICU's results, so that ICU's BreakIterators
// (which cost about as much as three BPE encodings) only see the rest.
//
// Simple code points are those for which the UAX #29 rules, as ICU's
// word.txt and char.txt implement them, reduce to a few pairwise cases:
// below U+3000, valid UTF-8, and one of
//   kLetter     Word_Break ALetter (not Hebrew, not a dictionary script),
//               and '@' (ICU 72 follows CLDR 42 there)
//   kDigit      Word_Break Numeric
//   kMidLetter  MidLetter (ICU 72 leaves ':' out of it: see the class table)
//   kMidNumLet  MidNumLet or Single_Quote ('.', '\'', U+2019...)
//   kMidNum     MidNum (',', ';', ...)
//   kUnderscore '_' (the only ExtendNumLet kept)
//   kSpace      U+0020 (the only WSegSpace kept)
//   kCR, kLF
//   kOther      Word_Break Other
// each with Grapheme_Cluster_Break Other or Control (no marks, no Prepend,
// no Hangul jamo, no emoji), and not Han, kana, Hangul or Line_Break
// Complex_Context (ICU's dictionary scripts). Every simple code point is one
// grapheme cluster, except that CR LF is one.
//
// The text is cut into fragments at "safe points": after '\n', and after ' '
// when an ASCII byte other than ' ' follows. No word or grapheme rule joins
// across such a point (after LF everything breaks; after a space only
// spaces and Extend/Format/ZWJ join, and an ASCII byte is none of those), so
// ICU's boundaries and rule statuses on a fragment alone are those of the
// whole text. Fragments of simple code points are counted here; the others
// go to ICU. tests/compare/simple_segment_test.cpp checks this against ICU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "compare/word_bits.hpp"

namespace tok::compare::detail {

enum class WordClass : std::uint8_t {
  kNotSimple,
  kLetter,
  kDigit,
  kMidLetter,
  kMidNumLet,
  kMidNum,
  kUnderscore,
  kSpace,
  kCR,
  kLF,
  kOther,
};

// Code point -> WordClass for U+0000..U+2FFF, from ICU's properties.
// Immutable once built; shared by all threads.
class SimpleClasses {
 public:
  static constexpr char32_t kLimit = 0x3000;
  static const SimpleClasses& get();
  WordClass of(char32_t c) const {
    return c < kLimit ? static_cast<WordClass>(table_[c]) : WordClass::kNotSimple;
  }

 private:
  SimpleClasses();
  std::vector<std::uint8_t> table_;  // (kLimit) WordClass values
};

// Is `q` a safe point of `text` (see above)? 0 and text.size() are.
bool is_safe_point(std::string_view text, std::size_t q);
// The first safe point > from.
std::size_t next_safe_point(std::string_view text, std::size_t from);

struct FragmentScan {
  bool simple = false;     // false: a non-simple code point; nothing was added
  std::size_t end = 0;     // the next safe point
  std::size_t graphemes = 0;
};

// The last safe point in (from, to], or from if there is none.
std::size_t prev_safe_point(std::string_view text, std::size_t from, std::size_t to);

// Counts the fragment that starts at the safe point `begin`: graphemes, and
// adds its words to `words` (none when it is not simple).
FragmentScan scan_fragment(std::string_view text, std::size_t begin, const SimpleClasses& classes,
                           WordBits& words);

}  // namespace tok::compare::detail
