#include "text/escape.hpp"

#include <fmt/format.h>

#include "text/utf8.hpp"

namespace tok::text {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

}  // namespace

std::string escape_markup(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    std::size_t len = utf8::valid_char_length(s.substr(i));
    if (len != 1) {
      out.append(len == 0 ? kReplacement : s.substr(i, len));
      i += len == 0 ? 1 : len;
      continue;
    }
    char c = s[i++];
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      case '\n': out += "&#10;"; break;
      case '\r': out += "&#13;"; break;
      case '\t': out += c; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out.append(kReplacement);
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string escape_terminal(std::string_view bytes, TerminalEscape options) {
  std::string out;
  out.reserve(bytes.size());
  auto hex = [&](std::string_view b) {
    for (char c : b) out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
  };
  for (std::size_t i = 0; i < bytes.size();) {
    std::size_t len = utf8::valid_char_length(bytes.substr(i));
    if (len == 0) {
      hex(bytes.substr(i++, 1));
      continue;
    }
    std::string_view ch = bytes.substr(i, len);
    i += len;
    // C1 controls are U+0080..U+009F: 0xC2 0x80..0x9F.
    if (len == 2 && static_cast<unsigned char>(ch[0]) == 0xC2 && static_cast<unsigned char>(ch[1]) < 0xA0) {
      hex(ch);
      continue;
    }
    if (len > 1) {
      out.append(ch);
      continue;
    }
    char c = ch[0];
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\\': out += options.backslash ? "\\\\" : "\\"; break;
      case '"': out += options.quote ? "\\\"" : "\""; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          hex(ch);
        } else {
          out += c;
        }
    }
  }
  return out;
}

}  // namespace tok::text
