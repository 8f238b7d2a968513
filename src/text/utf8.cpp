// Strict UTF-8 validation (RFC 3629): no overlong forms, no surrogates
// (U+D800..U+DFFF), nothing above U+10FFFF.
#include <cstring>

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
    if (p[i] < 0x80) {
      ++i;
      continue;
    }
    std::size_t len = valid_char_length(s.substr(i));
    if (len == 0) return i;
    i += len;
  }
  return n;
}

}  // namespace tok::text
