#include "show/visible_text.hpp"

#include <fmt/format.h>
#include <utf8proc.h>

#include "core/number_format.hpp"
#include "text/utf8.hpp"

namespace tok::show {
namespace {

// The code point of one valid character (valid_char_length said so).
char32_t decode(std::string_view ch) {
  std::size_t len;
  return text::utf8::decode(reinterpret_cast<const unsigned char*>(ch.data()), len);
}

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

std::string encode_utf8(char32_t cp) {
  std::string out;
  utf8proc_uint8_t buf[4];
  auto n = utf8proc_encode_char(static_cast<utf8proc_int32_t>(cp), buf);
  out.assign(reinterpret_cast<const char*>(buf), static_cast<std::size_t>(n));
  return out;
}

// The glyph for one special character, or kind kText for ordinary ones.
Glyph special_glyph(char32_t cp) {
  if (cp == ' ') return {GlyphKind::kSpace, "·", 1};
  if (cp == 0xA0) return {GlyphKind::kSpace, "⍽", 1};  // no-break space
  if (cp == '\t') return {GlyphKind::kTab, "→", 1};
  if (cp == '\n') return {GlyphKind::kNewline, "↵", 1};
  // C0 controls and DEL as Unicode control pictures (U+2400 block).
  if (cp < 0x20) return {GlyphKind::kControl, encode_utf8(0x2400 + cp), 1};
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

std::size_t display_width(std::string_view utf8) {
  std::size_t width = 0, i = 0;
  while (i < utf8.size()) {
    std::size_t len = text::utf8::valid_char_length(utf8.substr(i));
    if (len == 0) {
      ++i;
      continue;
    }
    width += char_width(decode(utf8.substr(i, len)));
    i += len;
  }
  return width;
}

std::vector<Glyph> visible_glyphs(std::string_view bytes) {
  std::vector<Glyph> out;
  std::size_t i = 0;
  while (i < bytes.size()) {
    std::size_t len = text::utf8::valid_char_length(bytes.substr(i));
    if (len == 0) {
      // A run of bytes that do not make a character here: ⟨e4 bd⟩.
      std::size_t start = i;
      while (i < bytes.size() && text::utf8::valid_char_length(bytes.substr(i)) == 0) ++i;
      std::string t = "⟨" + hex_bytes(bytes.substr(start, i - start), " ") + "⟩";
      out.push_back({GlyphKind::kBytes, t, display_width(t)});
      continue;
    }
    std::string_view ch = bytes.substr(i, len);
    char32_t cp = decode(ch);
    i += len;
    Glyph g = special_glyph(cp);
    if (g.kind != GlyphKind::kText) {
      out.push_back(std::move(g));
      continue;
    }
    // Ordinary characters join the preceding text glyph.
    if (out.empty() || out.back().kind != GlyphKind::kText) out.push_back({GlyphKind::kText, {}, 0});
    out.back().text.append(ch);
    out.back().width += char_width(cp);
  }
  return out;
}

}  // namespace tok::show
