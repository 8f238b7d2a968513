#include "text/escape.hpp"

#include <fmt/format.h>

#include "core/utf8.hpp"

namespace tok::text {

std::string escape_markup(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    std::size_t len = utf8::valid_char_length(s.substr(i));
    if (len != 1) {
      if (len == 0) {
        utf8::append(out, utf8::kReplacement);
        ++i;
      } else {
        out.append(s.substr(i, len));
        i += len;
      }
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
          utf8::append(out, utf8::kReplacement);
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
    if (len == 2 && static_cast<unsigned char>(ch[0]) == 0xC2 &&
        static_cast<unsigned char>(ch[1]) < 0xA0) {
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

std::string escape_json_controls(std::string json) {
  auto is_c1 = [&](std::size_t i) {
    return static_cast<unsigned char>(json[i]) == 0xC2 && i + 1 < json.size() &&
           static_cast<unsigned char>(json[i + 1]) < 0xA0 &&
           static_cast<unsigned char>(json[i + 1]) >= 0x80;
  };
  std::size_t i = 0;
  while (i < json.size() && json[i] != 0x7f && !is_c1(i)) ++i;
  if (i == json.size()) return json;  // the common case: nothing to change
  std::string out = json.substr(0, i);
  for (; i < json.size(); ++i) {
    if (json[i] == 0x7f) {
      out += "\\u007f";
    } else if (is_c1(i)) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(json[i + 1]));
      ++i;
    } else {
      out += json[i];
    }
  }
  return out;
}

Result<std::string> unescape_c(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  auto hex_value = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\') {
      out += s[i];
      continue;
    }
    if (++i == s.size())
      return make_error("a backslash ends the string (write \\\\ for one backslash)");
    switch (s[i]) {
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case '\\': out += '\\'; break;
      case '"': out += '"'; break;
      case '\'': out += '\''; break;
      case 'x': {
        int hi = i + 1 < s.size() ? hex_value(s[i + 1]) : -1;
        int lo = i + 2 < s.size() ? hex_value(s[i + 2]) : -1;
        if (hi < 0 || lo < 0) return make_error("\\x takes two hex digits (\\x0a)");
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
        break;
      }
      default: {
        std::size_t len = utf8::symbol_length(s.substr(i));
        return make_error("unknown escape \\{} (known: \\n \\r \\t \\\\ \\\" \\' \\xHH)",
                          escape_terminal(s.substr(i, len)));
      }
    }
  }
  return out;
}

}  // namespace tok::text
