// UTF-8 decoding for the pre-tokenizer's hot loops, and tok's one rule for
// the length of a character from its lead byte. decode() takes input already
// validated (valid_utf8_prefix), so it skips all checks: a wrong byte there is
// a bug upstream, not bad user input. Code that meets unvalidated bytes (token
// bytes, user text to escape) asks valid_char_length().
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

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

// Length of the character whose lead byte is b, from that byte alone. A byte
// that cannot start a character (a continuation byte 0x80-0xBF, or
// 0xF8-0xFF) counts as 1, so a scan over any bytes always moves forward one
// byte at a time through what is not UTF-8.
inline std::size_t char_length(unsigned char b) {
  if (b < 0xC0) return 1;
  if (b < 0xE0) return 2;
  if (b < 0xF0) return 3;
  return b < 0xF8 ? 4 : 1;
}

// Length of the character at s[0] if it is complete and valid UTF-8 (RFC
// 3629: no overlong forms, surrogates or code points above U+10FFFF) within
// s, else 0. s must not be empty. This is tok's one definition of valid
// UTF-8: valid_utf8_prefix's scalar form is this, a character at a time.
inline std::size_t valid_char_length(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  unsigned char b = p[0];
  if (b < 0x80) return 1;
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
    return 0;
  }
  if (len > s.size() || p[1] < lo || p[1] > hi) return 0;
  for (std::size_t k = 2; k < len; ++k) {
    if ((p[k] & 0xC0) != 0x80) return 0;
  }
  return len;
}

// Length of the initial symbol at s[0] for a merge loop whose symbols are
// characters (SentencePiece-style vocabularies): the valid character there,
// or one byte of what is not valid UTF-8. A truncated lead byte therefore
// never takes the bytes after it, which are encoded as the text they are
// (docs/encode.md, "Invalid UTF-8"). s must not be empty.
inline std::size_t symbol_length(std::string_view s) {
  std::size_t len = valid_char_length(s);
  return len ? len : 1;
}

// valid_utf8_prefix (pretokenizer.hpp) a byte at a time, with word-sized
// steps over ASCII: what the vector form falls back to near an error and at
// the end of the text, and what the tests compare it with.
std::size_t valid_prefix_scalar(std::string_view s);

}  // namespace tok::text::utf8
