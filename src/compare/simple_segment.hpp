// The exact fast path of Segmenter: grapheme clusters and words of "simple"
// text counted by hand, with ICU's results, so that ICU's BreakIterators
// (which cost about as much as three BPE encodings) only see the rest.
//
// Simple code points (simple_classes.hpp) follow UAX #29 with a few cases:
// every one starts a grapheme cluster except that CR LF is one, marks
// (kExtend) join the cluster before them unless it ends in a control, and
// an Indic conjunct stays one; for words, marks are transparent (WB4) and
// the rest is the pairwise rules WB3-WB13b restricted to those classes.
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
#include <string_view>

#include "compare/simple_classes.hpp"
#include "compare/word_bits.hpp"

namespace tok::compare::detail {

// Is `q` a safe point of `text` (see above)? 0 and text.size() are.
bool is_safe_point(std::string_view text, std::size_t q);
// The first safe point > from.
std::size_t next_safe_point(std::string_view text, std::size_t from);

struct FragmentScan {
  bool simple = false;  // false: a non-simple code point; nothing was added
  std::size_t end = 0;  // the next safe point
  std::size_t graphemes = 0;
};

// The last safe point in (from, to], or from if there is none.
std::size_t prev_safe_point(std::string_view text, std::size_t from, std::size_t to);

// Counts the fragment that starts at the safe point `begin`: graphemes, and
// adds its words to `words` (none when it is not simple).
FragmentScan scan_fragment(std::string_view text, std::size_t begin, const SimpleClasses& classes,
                           WordBits& words);

}  // namespace tok::compare::detail
