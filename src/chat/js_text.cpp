#include "chat/js_text.hpp"

#include <fmt/format.h>

#include "core/utf8.hpp"

namespace tok::chat {

namespace {

bool is_js_space(unsigned cp) {
  return cp == ' ' || (cp >= 0x09 && cp <= 0x0d) || cp == 0xa0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 || cp == 0x2029 || cp == 0x202f ||
         cp == 0x205f || cp == 0x3000 || cp == 0xfeff;
}

}  // namespace

std::size_t js_space_at(std::string_view s, std::size_t pos) {
  if (pos >= s.size()) return 0;
  utf8::Decoded d = utf8::decode_at(s, pos);
  return d.valid && is_js_space(d.cp) ? d.len : 0;
}

std::size_t js_space_before(std::string_view s, std::size_t end) {
  for (std::size_t len = 1; len <= 3 && len <= end; ++len) {
    if (js_space_at(s, end - len) == len) return len;
  }
  return 0;
}

std::string_view js_trim_start(std::string_view s) {
  std::size_t p = 0, n;
  while ((n = js_space_at(s, p)) > 0) p += n;
  return s.substr(p);
}

std::string_view js_trim_end(std::string_view s) {
  std::size_t e = s.size(), n;
  while ((n = js_space_before(s, e)) > 0) e -= n;
  return s.substr(0, e);
}

std::string_view js_trim(std::string_view s) { return js_trim_end(js_trim_start(s)); }

std::vector<std::string> code_points(std::string_view s) {
  std::vector<std::string> out;
  for (std::size_t p = 0; p < s.size();) {
    std::size_t len = utf8::symbol_length(s.substr(p));
    out.emplace_back(s.substr(p, len));
    p += len;
  }
  return out;
}

std::string ascii_upper(std::string_view s) {
  std::string r(s);
  for (char& c : r)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
  return r;
}

std::string ascii_lower(std::string_view s) {
  std::string r(s);
  for (char& c : r)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  return r;
}

std::string json_quote(std::string_view s, bool ensure_ascii) {
  std::string out = "\"";
  for (std::size_t p = 0; p < s.size();) {
    utf8::Decoded d = utf8::decode_at(s, p);
    // A byte that is not UTF-8 is U+FFFD, as in the JavaScript string the
    // reference's decoder would have made of it.
    char32_t cp = d.valid ? d.cp : utf8::kReplacement;
    switch (cp) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (cp < 0x20) {
          out += fmt::format("\\u{:04x}", static_cast<unsigned>(cp));
        } else if (ensure_ascii && cp >= 0x7f) {
          // makeAsciiSafe works on UTF-16 units: astral characters become
          // a surrogate pair.
          if (cp >= 0x10000) {
            auto v = static_cast<unsigned>(cp - 0x10000);
            out += fmt::format("\\u{:04x}\\u{:04x}", 0xd800 + (v >> 10), 0xdc00 + (v & 0x3ff));
          } else {
            out += fmt::format("\\u{:04x}", static_cast<unsigned>(cp));
          }
        } else {
          utf8::append(out, cp);
        }
    }
    p += d.len;
  }
  out += '"';
  return out;
}

}  // namespace tok::chat
