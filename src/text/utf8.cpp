// Strict UTF-8 validation (RFC 3629): no overlong forms, no surrogates
// (U+D800..U+DFFF), nothing above U+10FFFF.
#include <cstring>

#include "text/pretokenizer.hpp"
#include "text/utf8.hpp"

namespace tok::text {

std::size_t utf8::valid_prefix_scalar(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  std::size_t i = 0;
  while (i < n) {
    // Most text is ASCII: check 32 bytes at a time (four words or'ed: one
    // branch a block), then 8.
    while (i + 32 <= n) {
      std::uint64_t w[4];
      std::memcpy(w, p + i, 32);
      if (((w[0] | w[1] | w[2] | w[3]) & 0x8080808080808080ULL) != 0) break;
      i += 32;
    }
    // The blocks may have ended exactly at the end of the input.
    if (i == n) break;
    if (i + 8 <= n) {
      std::uint64_t w;
      std::memcpy(&w, p + i, 8);
      if ((w & 0x8080808080808080ULL) == 0) {
        i += 8;
        continue;
      }
    }
    unsigned char b = p[i];
    if (b < 0x80) {
      ++i;
      continue;
    }
    std::size_t len;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (b >= 0xC2 && b <= 0xDF) {
      len = 2;
    } else if (b >= 0xE0 && b <= 0xEF) {
      len = 3;
      if (b == 0xE0) lo = 0xA0;  // overlong
      if (b == 0xED) hi = 0x9F;  // surrogates
    } else if (b >= 0xF0 && b <= 0xF4) {
      len = 4;
      if (b == 0xF0) lo = 0x90;  // overlong
      if (b == 0xF4) hi = 0x8F;  // above U+10FFFF
    } else {
      return i;
    }
    if (i + len > n || p[i + 1] < lo || p[i + 1] > hi) return i;
    for (std::size_t k = 2; k < len; ++k) {
      if ((p[i + k] & 0xC0) != 0x80) return i;
    }
    i += len;
  }
  return n;
}

std::size_t utf8::valid_char_length(std::string_view s) {
  std::size_t len = char_length(static_cast<unsigned char>(s[0]));
  if (len > s.size()) return 0;
  return valid_utf8_prefix(s.substr(0, len)) == len ? len : 0;
}

}  // namespace tok::text
