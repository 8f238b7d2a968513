// Unicode character classes used by the split patterns, as one byte of bits
// per code point. The table is made from tok's own Unicode tables
// (unicode_tables.hpp: the version the references use, kUnicodeVersion) at
// build time (unicode_props_build.hpp, make_unicode_props) and is constant
// data in the library.
//
// Layout: two stages. stage1 maps each 256-code-point block to the index of a
// distinct 256-byte block in stage2; most blocks are identical (unassigned,
// CJK, Hangul...), so the whole table is a few tens of KB and lookups are two
// loads.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tok::text {

enum PropBits : std::uint8_t {
  kPropLetter = 1 << 0,    // \p{L}
  kPropNumber = 1 << 1,    // \p{N}
  kPropSpace = 1 << 2,     // \s: the White_Space property (not U+180E, U+200B, U+FEFF)
  kPropMark = 1 << 3,      // \p{M}
  kPropUpperish = 1 << 4,  // o200k's [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
  kPropLowerish = 1 << 5,  // o200k's [\p{Ll}\p{Lm}\p{Lo}\p{M}]
};

// Properties of the ASCII range, known at compile time for the fast paths.
struct AsciiProps {
  std::uint8_t bits[128];
};
inline constexpr AsciiProps kAsciiProps = [] {
  AsciiProps t{};
  for (int c = 'A'; c <= 'Z'; ++c) t.bits[c] = kPropLetter | kPropUpperish;
  for (int c = 'a'; c <= 'z'; ++c) t.bits[c] = kPropLetter | kPropLowerish;
  for (int c = '0'; c <= '9'; ++c) t.bits[c] = kPropNumber;
  for (int c = '\t'; c <= '\r'; ++c) t.bits[c] = kPropSpace;
  t.bits[0x20] = kPropSpace;  // ' ': a char subscript trips clang's -Wchar-subscripts
  return t;
}();

// The table, written at build time by make_unicode_props from tok's tables.
extern const std::uint16_t kUnicodePropsStage1[0x1100];
extern const std::uint8_t kUnicodePropsStage2[];
extern const std::size_t kUnicodePropsStage2Size;

class UnicodeProps {
 public:
  // The process-wide table: constant data, nothing to build.
  static const UnicodeProps& get() {
    static constexpr UnicodeProps table;
    return table;
  }

  std::uint8_t operator()(char32_t cp) const {
    if (cp >= 0x110000) return 0;
    return kUnicodePropsStage2[std::size_t(kUnicodePropsStage1[cp >> 8]) << 8 | (cp & 0xFF)];
  }
};

}  // namespace tok::text
