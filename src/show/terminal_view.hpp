// The terminal view of `tok show`: the text drawn token by token with
// alternating background colours, invisible characters made visible
// (visible_text.hpp), and optionally each token's id after it.
//
// Two vocabularies are drawn one row under the other, line by line, with the
// same text in the same columns. How: for each input line, the places where
// both vocabularies end a token are sync points; between two sync points each
// row draws its own tokens, and the narrower row is padded with spaces to the
// wider one's width. Without ids, colours and partial-UTF-8 tokens both rows
// draw the same glyphs, so no padding is needed; padding appears where one row
// shows ⟨e4 bd⟩ hex, ids or separators that the other does not. Rows are
// wrapped at sync points to the terminal width so wrapping never misaligns.
#pragma once

#include <cstddef>
#include <string>

#include <vector>

#include "show/summary.hpp"
#include "show/token_spans.hpp"

namespace tok::show {

enum class Palette {
  kNone,   // no escape codes: tokens separated by '│'
  kBasic,  // 8/16-colour SGR backgrounds (any ANSI terminal)
  k256,    // 256-colour pastel backgrounds
};

struct TerminalOptions {
  Palette palette = Palette::kNone;
  bool ids = false;       // draw each token's id after it, as subscript digits
  std::size_t width = 0;  // wrap aligned rows at this many columns; 0 = never
};

// The first `count` spans of t, drawn as one stream with real line breaks.
std::string render_tokens(const Tokenization& t, std::size_t count, const TerminalOptions& o);

// Two tokenizations of the same text, text[0, end) (end a common boundary,
// see common_end), as row pairs labelled with the encoding names.
std::string render_aligned(const Tokenization& a, const Tokenization& b, std::size_t end,
                           const TerminalOptions& o);

// The summary as an indented table: label, right-aligned value, dim note.
std::string render_summary(const std::vector<SummarySection>& sections, Palette p);

// The palette for an environment: `color` is "always", "never" or "auto";
// auto gives kNone when NO_COLOR is set (non-empty), stdout is not a
// terminal or TERM is "dumb". 256 colours when TERM mentions 256color or
// COLORTERM is truecolor/24bit, else the basic palette.
Palette choose_palette(const std::string& color, bool stdout_is_tty, const char* term,
                       const char* colorterm, const char* no_color);

}  // namespace tok::show
