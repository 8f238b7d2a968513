// The ASCII kernel of Segmenter: grapheme clusters and words of a run of
// "simple" ASCII (simple_segment.hpp) 64 bytes at a time, with bit masks
// instead of a decode, a class lookup and a branch per byte. Most of the
// text tok compare sees is ASCII (code, logs, English), where the per-byte
// fragment scan cost about as much as one BPE encoding.
//
// On simple ASCII the word rules reduce to masks: letters (A-Z, a-z, '@'),
// digits and '_' join each other (WB5, WB8-WB10, WB13a/b); '.' or '\''
// between two letters (WB6/WB7) and ',', ';', '.' or '\'' between two
// digits (WB11/WB12) join too. A word is then a maximal run of those bytes,
// except a lone '_' (ICU gives it no word status); every byte is one
// grapheme except that CR LF is one. The classes are written into the
// kernel; ascii_kernel_matches_icu() checks them against ICU's
// (SimpleClasses) for all 128 bytes, and Segmenter does not use the kernel
// if they differ.
#pragma once

#include <cstddef>
#include <string_view>

#include "compare/word_bits.hpp"

namespace tok::compare::detail {

bool ascii_kernel_matches_icu();

// The first position >= from whose byte is not simple ASCII (a byte >= 0x80,
// VT, FF), or text.size().
std::size_t simple_ascii_end(std::string_view text, std::size_t from);

// The ASCII run from `from` on: where it ends (the first byte >= 0x80, or
// text.size()) and how many of its bytes are letters A-Z, a-z (Latin
// script, for the script shares).
struct AsciiLetters {
  std::size_t end = 0;
  std::size_t letters = 0;
};
AsciiLetters ascii_letters(std::string_view text, std::size_t from);

// Graphemes of text[begin, end), simple ASCII between two safe points; adds
// its words to `words`.
std::size_t segment_ascii(std::string_view text, std::size_t begin, std::size_t end,
                          WordBits& words);

}  // namespace tok::compare::detail
