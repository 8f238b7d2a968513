// UTF-8: tok's one definition of a valid character, and the one decoder and
// encoder every module uses (the pre-tokenizer's hot loops, the escapers, the
// chat templates' string functions, the byte-level alphabet, the terminal
// view). Valid means RFC 3629: no overlong forms, no surrogates
// (U+D800..U+DFFF), nothing above U+10FFFF. What is not valid is taken one
// byte at a time everywhere, so a scan over any bytes always moves forward
// and a stray lead byte never swallows the bytes after it (docs/encode.md,
// "Invalid UTF-8"). The vector validator (text::valid_utf8_prefix) lives in
// text, beside the scanners that share its CPU check; its scalar form is
// valid_prefix_scalar below.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tok::utf8 {

// U+FFFD, what a byte that is not UTF-8 or a code point that is not a
// Unicode scalar value is shown as where text must be valid.
inline constexpr char32_t kReplacement = 0xFFFD;

inline bool is_continuation(unsigned char b) { return (b & 0xC0) == 0x80; }

// Decodes the character starting at p, which must be valid UTF-8 (checked
// by valid_char_length or valid_utf8_prefix before), and stores its length
// in bytes in len. No checks: the pre-tokenizer's hot loops call it on
// validated text, where a wrong byte is a bug upstream, not bad input.
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
  return (char32_t(b & 0x07) << 18) | (char32_t(p[1] & 0x3F) << 12) | (char32_t(p[2] & 0x3F) << 6) |
         (p[3] & 0x3F);
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

// Length of the character at s[0] if it is complete and valid UTF-8 within
// s, else 0. s must not be empty. Every other check in tok is this one.
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
    if (!is_continuation(p[k])) return 0;
  }
  return len;
}

// Length of the symbol at s[0]: the valid character there, or one byte of
// what is not valid UTF-8. s must not be empty. The step of every scan
// over bytes that may not be UTF-8 (the merge loop's initial symbols,
// escapers, string functions).
inline std::size_t symbol_length(std::string_view s) {
  std::size_t len = valid_char_length(s);
  return len ? len : 1;
}

// One step of a checked scan: the character at s[pos] (pos < s.size()).
struct Decoded {
  char32_t cp;      // the code point; for an invalid byte, the byte's value
  std::size_t len;  // bytes taken: the character's length, or 1
  bool valid;       // false: s[pos] starts no valid character
};

inline Decoded decode_at(std::string_view s, std::size_t pos) {
  std::size_t len = valid_char_length(s.substr(pos));
  if (len == 0) return {static_cast<unsigned char>(s[pos]), 1, false};
  std::size_t n;
  char32_t cp = decode(reinterpret_cast<const unsigned char*>(s.data()) + pos, n);
  return {cp, len, true};
}

// Is cp a Unicode scalar value (encodable: not a surrogate, not past
// U+10FFFF)?
inline bool is_scalar(char32_t cp) { return cp < 0xD800 || (cp > 0xDFFF && cp <= 0x10FFFF); }

// Writes cp as UTF-8 to out (room for 4 bytes) and returns the length. A
// value that is not a scalar value is written as U+FFFD, so the output is
// always valid UTF-8.
inline std::size_t encode(char32_t cp, char* out) {
  if (!is_scalar(cp)) cp = kReplacement;
  if (cp < 0x80) {
    out[0] = static_cast<char>(cp);
    return 1;
  }
  if (cp < 0x800) {
    out[0] = static_cast<char>(0xC0 | (cp >> 6));
    out[1] = static_cast<char>(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = static_cast<char>(0xE0 | (cp >> 12));
    out[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out[2] = static_cast<char>(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = static_cast<char>(0xF0 | (cp >> 18));
  out[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
  out[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
  out[3] = static_cast<char>(0x80 | (cp & 0x3F));
  return 4;
}

inline void append(std::string& out, char32_t cp) {
  char buf[4];
  out.append(buf, encode(cp, buf));
}

inline std::string encode(char32_t cp) {
  std::string out;
  append(out, cp);
  return out;
}

// The length of s's longest prefix of whole characters: s less a trailing
// lead byte whose continuation bytes have not arrived yet (a stream cut in
// the middle of a character). Bytes that can never complete a character
// count as whole (they are released as they are).
std::size_t complete_prefix(std::string_view s);

// The length of s's longest valid UTF-8 prefix, a byte at a time with
// word-sized steps over ASCII: what text::valid_utf8_prefix's vector form
// falls back to near an error and at the end of the text, and what the
// tests compare it with.
std::size_t valid_prefix_scalar(std::string_view s);

}  // namespace tok::utf8
