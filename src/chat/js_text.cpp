#include "chat/js_text.hpp"

#include <fmt/format.h>

namespace tok::chat {

namespace {

// Decodes the code point at s[pos]; *len gets its byte length (1 for an
// invalid byte, which decodes as itself).
unsigned decode(std::string_view s, std::size_t pos, std::size_t* len) {
  auto b = static_cast<unsigned char>(s[pos]);
  int n = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
  if (n == 0 || pos + n > s.size()) {
    *len = 1;
    return b;
  }
  unsigned cp = n == 1 ? b : b & (0x7f >> n);
  for (int k = 1; k < n; ++k) {
    auto c = static_cast<unsigned char>(s[pos + k]);
    if ((c >> 6) != 2) {
      *len = 1;
      return b;
    }
    cp = (cp << 6) | (c & 0x3f);
  }
  *len = static_cast<std::size_t>(n);
  return cp;
}

bool is_js_space(unsigned cp) {
  return cp == ' ' || (cp >= 0x09 && cp <= 0x0d) || cp == 0xa0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) ||
         cp == 0x2028 || cp == 0x2029 || cp == 0x202f || cp == 0x205f || cp == 0x3000 || cp == 0xfeff;
}

}  // namespace

std::size_t js_space_at(std::string_view s, std::size_t pos) {
  if (pos >= s.size()) return 0;
  std::size_t len = 0;
  unsigned cp = decode(s, pos, &len);
  return is_js_space(cp) && (len > 1 || cp < 0x80) ? len : 0;
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
    std::size_t len = 0;
    decode(s, p, &len);
    out.emplace_back(s.substr(p, len));
    p += len;
  }
  return out;
}

std::string ascii_upper(std::string_view s) {
  std::string r(s);
  for (char& c : r) if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
  return r;
}

std::string ascii_lower(std::string_view s) {
  std::string r(s);
  for (char& c : r) if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  return r;
}

void append_utf8(std::string& out, unsigned cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xc0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xe0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

std::string json_quote(std::string_view s, bool ensure_ascii) {
  std::string out = "\"";
  for (std::size_t p = 0; p < s.size();) {
    std::size_t len = 0;
    unsigned cp = decode(s, p, &len);
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
          out += fmt::format("\\u{:04x}", cp);
        } else if (ensure_ascii && cp >= 0x7f) {
          // makeAsciiSafe works on UTF-16 units: astral characters become
          // a surrogate pair.
          if (cp >= 0x10000) {
            unsigned v = cp - 0x10000;
            out += fmt::format("\\u{:04x}\\u{:04x}", 0xd800 + (v >> 10), 0xdc00 + (v & 0x3ff));
          } else {
            out += fmt::format("\\u{:04x}", cp);
          }
        } else {
          out.append(s.substr(p, len));
        }
    }
    p += len;
  }
  out += '"';
  return out;
}

}  // namespace tok::chat
