#include "show/terminal_view.hpp"

#include <string_view>
#include <vector>

#include "show/summary.hpp"
#include "show/visible_text.hpp"

namespace tok::show {
namespace {

constexpr std::string_view kReset = "\x1b[0m";
constexpr std::string_view kSeparator = "│";
// Pastel backgrounds with black text: readable on dark and light terminals.
constexpr int kBackgrounds256[] = {189, 194, 223, 153, 225, 230};
constexpr int kBackgroundsBasic[] = {43, 46, 45, 42};

// A token, or the part of it on one line.
struct Piece {
  std::string_view bytes;
  std::size_t index;  // span index: picks the colour
  bpe::TokenId id;
  bool special;
  bool ends_token;  // the token's last piece: its id goes after it
};

std::string token_style(Palette p, std::size_t index, bool special) {
  std::string s = "\x1b[";
  if (p == Palette::k256) {
    s += "38;5;16;48;5;" + std::to_string(kBackgrounds256[index % std::size(kBackgrounds256)]);
  } else {
    s += "30;" + std::to_string(kBackgroundsBasic[index % std::size(kBackgroundsBasic)]);
  }
  if (special) s += ";1;4";  // bold, underlined
  return s + "m";
}

// Foreground for marker glyphs (·, →, ↵, ⟨ZWJ⟩) and for ⟨e4⟩ byte runs,
// drawn over the token's background.
std::string_view glyph_color(Palette p, GlyphKind kind) {
  if (kind == GlyphKind::kText) return {};
  if (kind == GlyphKind::kBytes) return p == Palette::k256 ? "\x1b[1;38;5;160m" : "\x1b[1;31m";
  return p == Palette::k256 ? "\x1b[38;5;244m" : "\x1b[90m";
}

std::string subscript(bpe::TokenId id) {
  static constexpr std::string_view kDigits[] = {"₀", "₁", "₂", "₃", "₄", "₅", "₆", "₇", "₈", "₉"};
  std::string out;
  for (char c : std::to_string(id)) out += kDigits[c - '0'];
  return out;
}

// Draws one piece; returns the columns it takes. With break_lines a newline
// glyph is followed by a real line break (the single-stream view); else the
// caller ends the row.
std::size_t paint(std::string& out, const Piece& piece, const TerminalOptions& o,
                  bool break_lines) {
  std::size_t width = 0;
  std::string style =
      o.palette == Palette::kNone ? "" : token_style(o.palette, piece.index, piece.special);
  out += style;
  for (const Glyph& g : visible_glyphs(piece.bytes)) {
    std::string_view color = o.palette == Palette::kNone ? "" : glyph_color(o.palette, g.kind);
    out += color;
    out += g.text;
    if (!color.empty()) {
      out += kReset;
      out += style;
    }
    width += g.width;
    if (g.kind == GlyphKind::kNewline && break_lines) {
      if (!style.empty()) out += kReset;
      out += '\n';
      out += style;
      width = 0;
    }
  }
  if (!style.empty()) out += kReset;
  if (o.ids && piece.ends_token) {
    std::string sub = subscript(piece.id);
    if (o.palette != Palette::kNone) out += "\x1b[2m";
    out += sub;
    if (o.palette != Palette::kNone) out += kReset;
    width += display_width(sub);
  }
  return width;
}

Piece piece_of(const Tokenization& t, std::size_t k, std::size_t begin, std::size_t end) {
  const Span& s = t.spans[k];
  return {std::string_view(t.text).substr(begin, end - begin), k, s.id, s.special,
          end == s.offset + s.length};
}

// One row of the aligned view, built group by group.
struct Row {
  std::string text;
  std::size_t width = 0;
};

// Draws the pieces of t inside [begin, end) (span k covers begin), advancing k.
std::size_t paint_range(std::string& out, const Tokenization& t, std::size_t& k, std::size_t begin,
                        std::size_t end, bool row_start, const TerminalOptions& o) {
  std::size_t width = 0;
  std::size_t pos = begin;
  while (pos < end) {
    const Span& s = t.spans[k];
    std::size_t stop = std::min(end, s.offset + s.length);
    if (o.palette == Palette::kNone && !(row_start && pos == begin)) {
      out += kSeparator;
      ++width;
    }
    width += paint(out, piece_of(t, k, pos, stop), o, false);
    if (stop == s.offset + s.length) ++k;
    pos = stop;
  }
  return width;
}

// End of the span of t that covers pos, clipped to line_end.
std::size_t boundary_after(const Tokenization& t, std::size_t k, std::size_t line_end) {
  return std::min(line_end, t.spans[k].offset + t.spans[k].length);
}

}  // namespace

std::string render_tokens(const Tokenization& t, std::size_t count, const TerminalOptions& o) {
  std::string out;
  bool line_start = true;
  for (std::size_t k = 0; k < count && k < t.spans.size(); ++k) {
    const Span& s = t.spans[k];
    if (o.palette == Palette::kNone && !line_start) out += kSeparator;
    paint(out, piece_of(t, k, s.offset, s.offset + s.length), o, true);
    line_start = !out.empty() && out.back() == '\n';
  }
  if (!out.empty() && !line_start) out += '\n';
  return out;
}

std::string render_aligned(const Tokenization& a, const Tokenization& b, std::size_t end,
                           const TerminalOptions& o) {
  std::size_t label_width = std::max(display_width(a.encoding), display_width(b.encoding));
  auto label = [&](const std::string& name) {
    std::string l = name + std::string(label_width - display_width(name), ' ') + " ";
    return o.palette == Palette::kNone ? l : "\x1b[2m" + l + std::string(kReset);
  };
  std::string out;
  std::size_t ka = 0, kb = 0;
  Row ra, rb;
  auto flush_rows = [&] {
    if (!out.empty()) out += '\n';  // a blank line between row pairs
    out += label(a.encoding) + ra.text + "\n" + label(b.encoding) + rb.text + "\n";
    ra = {};
    rb = {};
  };
  std::size_t line = 0;
  while (line < end) {
    std::size_t nl = a.text.find('\n', line);
    std::size_t line_end = nl == std::string::npos || nl + 1 > end ? end : nl + 1;
    std::size_t pos = line;
    while (pos < line_end) {
      // Next sync point: both rows end a token there (or the line ends).
      std::size_t pa = boundary_after(a, ka, line_end), pb = boundary_after(b, kb, line_end);
      for (std::size_t ia = ka, ib = kb; pa != pb;) {
        if (pa < pb) {
          pa = boundary_after(a, ++ia, line_end);
        } else {
          pb = boundary_after(b, ++ib, line_end);
        }
      }
      std::size_t ka0 = ka, kb0 = kb;
      Row ga, gb;
      ga.width = paint_range(ga.text, a, ka, pos, pa, ra.text.empty(), o);
      gb.width = paint_range(gb.text, b, kb, pos, pa, rb.text.empty(), o);
      if (o.width && !ra.text.empty() &&
          label_width + 1 + ra.width + std::max(ga.width, gb.width) > o.width) {
        // Wrap before this group; redrawn as a row start (no separator).
        flush_rows();
        ka = ka0;
        kb = kb0;
        ga = {};
        gb = {};
        ga.width = paint_range(ga.text, a, ka, pos, pa, true, o);
        gb.width = paint_range(gb.text, b, kb, pos, pa, true, o);
      }
      std::size_t w = std::max(ga.width, gb.width);
      ra.text += ga.text + std::string(w - ga.width, ' ');
      rb.text += gb.text + std::string(w - gb.width, ' ');
      ra.width += w;
      rb.width += w;
      pos = pa;
    }
    flush_rows();
    line = line_end;
  }
  return out;
}

std::string render_summary(const std::vector<SummarySection>& sections, Palette p) {
  std::string dim = p == Palette::kNone ? "" : "\x1b[2m";
  std::string bold = p == Palette::kNone ? "" : "\x1b[1m";
  std::string reset = p == Palette::kNone ? "" : "\x1b[0m";
  std::size_t lw = 0, vw = 0;
  for (const auto& s : sections) {
    for (const auto& r : s.rows) {
      lw = std::max(lw, display_width(r.label));
      vw = std::max(vw, display_width(r.value));
    }
  }
  std::string out;
  for (const auto& s : sections) {
    out += "\n" + bold + s.title + reset + "\n";
    for (const auto& r : s.rows) {
      out += "  " + r.label + std::string(lw - display_width(r.label), ' ') + "  ";
      out += std::string(vw - display_width(r.value), ' ') + r.value;
      out += "  " + dim + r.note + reset + "\n";
    }
    if (!s.sentence.empty()) out += s.sentence + "\n";
  }
  return out;
}

Palette choose_palette(const std::string& color, bool stdout_is_tty, const char* term,
                       const char* colorterm, const char* no_color) {
  std::string_view t = term ? term : "";
  if (color == "never") return Palette::kNone;
  if (color == "auto") {
    if (no_color && *no_color) return Palette::kNone;
    if (!stdout_is_tty || t.empty() || t == "dumb") return Palette::kNone;
  }
  std::string_view ct = colorterm ? colorterm : "";
  if (t.find("256color") != std::string_view::npos || ct == "truecolor" || ct == "24bit") {
    return Palette::k256;
  }
  return Palette::kBasic;
}

}  // namespace tok::show
