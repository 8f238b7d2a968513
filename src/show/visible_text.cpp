#include "show/visible_text.hpp"

#include <fmt/format.h>
#include <utf8proc.h>

#include "core/number_format.hpp"
#include "core/utf8.hpp"

namespace tok::show {
namespace {

// Name of an invisible format character, or nullptr for ordinary ones.
const char* zero_width_name(char32_t cp) {
  switch (cp) {
    case 0x200B: return "ZWSP";
    case 0x200C: return "ZWNJ";
    case 0x200D: return "ZWJ";
    case 0x2060: return "WJ";
    case 0xFEFF: return "BOM";
    case 0x00AD: return "SHY";
    // Bidirectional controls reorder what follows them ("Trojan Source"),
    // so they are drawn as names too.
    case 0x200E: return "LRM";
    case 0x200F: return "RLM";
    case 0x202A: return "LRE";
    case 0x202B: return "RLE";
    case 0x202C: return "PDF";
    case 0x202D: return "LRO";
    case 0x202E: return "RLO";
    case 0x2066: return "LRI";
    case 0x2067: return "RLI";
    case 0x2068: return "FSI";
    case 0x2069: return "PDI";
    default: return nullptr;
  }
}

// The glyph for one special character, or kind kText for ordinary ones.
Glyph special_glyph(char32_t cp) {
  if (cp == ' ') return {GlyphKind::kSpace, "·", 1};
  if (cp == 0xA0) return {GlyphKind::kSpace, "⍽", 1};  // no-break space
  if (cp == '\t') return {GlyphKind::kTab, "→", 1};
  if (cp == '\n') return {GlyphKind::kNewline, "↵", 1};
  // C0 controls and DEL as Unicode control pictures (U+2400 block).
  if (cp < 0x20) return {GlyphKind::kControl, utf8::encode(0x2400 + cp), 1};
  if (cp == 0x7F) return {GlyphKind::kControl, "␡", 1};
  if (cp >= 0x80 && cp < 0xA0) {
    std::string t = fmt::format("⟨U+{:04X}⟩", static_cast<unsigned>(cp));
    return {GlyphKind::kControl, t, display_width(t)};
  }
  if (const char* name = zero_width_name(cp)) {
    std::string t = fmt::format("⟨{}⟩", name);
    return {GlyphKind::kZeroWidth, t, display_width(t)};
  }
  return {GlyphKind::kText, {}, 0};
}

std::size_t char_width(char32_t cp) {
  int w = utf8proc_charwidth(static_cast<utf8proc_int32_t>(cp));
  return w > 0 ? static_cast<std::size_t>(w) : 0;
}

}  // namespace

std::size_t display_width(std::string_view text) {
  std::size_t width = 0, i = 0;
  while (i < text.size()) {
    utf8::Decoded d = utf8::decode_at(text, i);
    if (d.valid) width += char_width(d.cp);
    i += d.len;
  }
  return width;
}

std::vector<Glyph> visible_glyphs(std::string_view bytes) {
  std::vector<Glyph> out;
  std::size_t i = 0;
  while (i < bytes.size()) {
    utf8::Decoded d = utf8::decode_at(bytes, i);
    if (!d.valid) {
      // A run of bytes that do not make a character here: ⟨e4 bd⟩.
      std::size_t start = i;
      while (i < bytes.size() && utf8::valid_char_length(bytes.substr(i)) == 0) ++i;
      std::string t = "⟨" + hex_bytes(bytes.substr(start, i - start), " ") + "⟩";
      out.push_back({GlyphKind::kBytes, t, display_width(t)});
      continue;
    }
    std::string_view ch = bytes.substr(i, d.len);
    char32_t cp = d.cp;
    i += d.len;
    Glyph g = special_glyph(cp);
    if (g.kind != GlyphKind::kText) {
      out.push_back(std::move(g));
      continue;
    }
    // Ordinary characters join the preceding text glyph.
    if (out.empty() || out.back().kind != GlyphKind::kText)
      out.push_back({GlyphKind::kText, {}, 0});
    out.back().text.append(ch);
    out.back().width += char_width(cp);
  }
  return out;
}

}  // namespace tok::show
