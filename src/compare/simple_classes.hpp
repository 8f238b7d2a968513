// The classes of "simple" code points (simple_segment.hpp): those for which
// the UAX #29 rules, as ICU's word.txt and char.txt implement them, reduce
// to a few cases that Segmenter's fast path counts by hand. Derived from
// ICU's own properties when first used, for U+0000..U+2FFF:
//   kLetter     Word_Break ALetter (not Hebrew, not a dictionary script),
//               and '@' (ICU 72 follows CLDR 42 there)
//   kDigit      Word_Break Numeric
//   kMidLetter  MidLetter (ICU 72 leaves ':' out of it: see classify())
//   kMidNumLet  MidNumLet or Single_Quote ('.', '\'', U+2019...)
//   kMidNum     MidNum (',', ';', ...)
//   kUnderscore '_' (the only ExtendNumLet kept)
//   kSpace      U+0020 (the only WSegSpace kept)
//   kCR, kLF
//   kControl    Word_Break Other, Grapheme_Cluster_Break Control (TAB, ...)
//   kOther      Word_Break Other, Grapheme_Cluster_Break Other
//   kHangul     Hangul syllables (U+AC00..U+D7A3, Grapheme_Cluster_Break LV
//               or LVT): ICU joins a run of them into one word and breaks
//               it from everything else, even letters ("강a" is two words)
//   kExtend     Word_Break Extend or ZWJ, Grapheme_Cluster_Break Extend,
//               SpacingMark or ZWJ: combining marks, Indic vowel signs and
//               viramas, ZWNJ, ZWJ (no emoji is simple, so ZWJ only joins
//               as Extend does)
// The others (the other classes had Grapheme_Cluster_Break Other or
// Control: no Prepend, no Hangul jamo, no emoji; not Han, kana, Hangul or
// Line_Break Complex_Context, ICU's dictionary scripts) are kNotSimple.
//
// ICU 72's char.txt also keeps Indic conjuncts together, as CLDR does (the
// rule Unicode 15.1 adopted as GB9c): in Bengali, Devanagari, Gujarati,
// Oriya, Telugu and Malayalam, a consonant, then marks with a combining
// class or ZWJ, a virama, marks or ZWJ, does not break before the next
// consonant. The flags below mark those code points; whether this ICU has
// the rule is asked of ICU itself, and without it no code point is flagged.
#pragma once

#include <cstdint>
#include <vector>

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
  kControl,
  kOther,
  kExtend,
  kHangul,
};

// The Indic conjunct rule's roles (CLDR: LinkingConsonant, Virama, ExtCccZwj).
enum ConjunctFlag : std::uint8_t {
  kLinkingConsonant = 0x10,
  kVirama = 0x20,
  kCccOrZwj = 0x40,  // an Extend mark with a combining class, or ZWJ (viramas too)
};

// Code point -> WordClass and conjunct flags. Immutable once built; shared
// by all threads.
class SimpleClasses {
 public:
  static constexpr char32_t kLimit = 0x3000;
  static constexpr char32_t kHangulFirst = 0xAC00, kHangulLast = 0xD7A3;
  static const SimpleClasses& get();
  // The class in the low 4 bits, ConjunctFlags above them.
  std::uint8_t bits(char32_t c) const {
    if (c < kLimit) return table_[c];
    return c >= kHangulFirst && c <= kHangulLast ? hangul_ : 0;
  }
  WordClass of(char32_t c) const { return static_cast<WordClass>(bits(c) & 0x0F); }

 private:
  SimpleClasses();
  std::vector<std::uint8_t> table_;  // (kLimit) WordClass | ConjunctFlags
  std::uint8_t hangul_ = 0;          // kHangul, or kNotSimple if ICU does otherwise
};

}  // namespace tok::compare::detail
