// UTF-8 decoding for the pre-tokenizer's hot loops. Input handed to these
// functions has already been validated (valid_utf8_prefix), so decoding skips
// all checks: a wrong byte here is a bug upstream, not bad user input.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tok::text::utf8 {

// Decodes the character starting at p (valid UTF-8, non-ASCII lead byte
// allowed too) and stores its length in bytes in len.
inline char32_t decode(const unsigned char* p, std::size_t& len) {
  unsigned char b = p[0];
  if (b < 0x80) {
    len = 1;
    return b;
  }
  if (b < 0xE0) {
    len = 2;
    return (char32_t(b & 0x1F) << 6) | (p[1] & 0x3F);
  }
  if (b < 0xF0) {
    len = 3;
    return (char32_t(b & 0x0F) << 12) | (char32_t(p[1] & 0x3F) << 6) | (p[2] & 0x3F);
  }
  len = 4;
  return (char32_t(b & 0x07) << 18) | (char32_t(p[1] & 0x3F) << 12) |
         (char32_t(p[2] & 0x3F) << 6) | (p[3] & 0x3F);
}

// Length of the character whose lead byte is b (valid UTF-8 only).
inline std::size_t char_length(unsigned char b) {
  return b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
}

}  // namespace tok::text::utf8
