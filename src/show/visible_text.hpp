// Making text visible: `tok show` draws every byte of a token, including the
// ones a terminal or browser would hide (spaces, tabs, newlines, zero-width
// characters) and the ones that are not text on their own (a token that ends
// inside a UTF-8 sequence). Both the terminal and the HTML renderer draw the
// same glyphs, so the two views always agree.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tok::show {

enum class GlyphKind {
  kText,       // ordinary printable text, drawn as itself
  kSpace,      // ' ' drawn as '·'
  kTab,        // '\t' drawn as '→'
  kNewline,    // '\n' drawn as '↵' (renderers add a real line break after it)
  kControl,    // other C0/C1 controls and '\r', drawn as ⟨0d⟩ style names
  kZeroWidth,  // U+200B..U+200D, U+2060, U+FEFF, U+00AD, bidi controls: ⟨ZWJ⟩ etc.
  kBytes,      // bytes that are not valid UTF-8 on their own, drawn as ⟨e4 bd⟩
};

struct Glyph {
  GlyphKind kind;
  std::string text;   // what to draw (UTF-8)
  std::size_t width;  // terminal columns `text` occupies
};

// The glyphs that draw `bytes`, in order; together they stand for every byte
// exactly once. Bytes that do not form a complete UTF-8 character inside
// `bytes` (partial sequences, invalid bytes) become one kBytes glyph per run.
std::vector<Glyph> visible_glyphs(std::string_view bytes);

// Terminal columns of a valid UTF-8 string (East Asian wide = 2, combining = 0).
std::size_t display_width(std::string_view utf8);

}  // namespace tok::show
