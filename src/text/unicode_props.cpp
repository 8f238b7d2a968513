#include "text/unicode_props.hpp"

#include <unicode/uchar.h>

#include <cstring>
#include <map>
#include <string>

namespace tok::text {
namespace {

std::uint8_t props_from_icu(UChar32 cp) {
  std::uint8_t bits = 0;
  switch (u_charType(cp)) {
    case U_UPPERCASE_LETTER:
    case U_TITLECASE_LETTER:
      bits = kPropLetter | kPropUpperish;
      break;
    case U_LOWERCASE_LETTER:
      bits = kPropLetter | kPropLowerish;
      break;
    case U_MODIFIER_LETTER:
    case U_OTHER_LETTER:
      bits = kPropLetter | kPropUpperish | kPropLowerish;
      break;
    case U_NON_SPACING_MARK:
    case U_ENCLOSING_MARK:
    case U_COMBINING_SPACING_MARK:
      bits = kPropMark | kPropUpperish | kPropLowerish;
      break;
    case U_DECIMAL_DIGIT_NUMBER:
    case U_LETTER_NUMBER:
    case U_OTHER_NUMBER:
      bits = kPropNumber;
      break;
    default:
      break;
  }
  if (u_hasBinaryProperty(cp, UCHAR_WHITE_SPACE)) bits |= kPropSpace;
  return bits;
}

}  // namespace

UnicodeProps::UnicodeProps() : stage1_(0x110000 >> 8) {
  std::map<std::string, std::uint16_t> seen;  // block contents -> index
  std::string block(256, '\0');
  for (std::size_t hi = 0; hi < stage1_.size(); ++hi) {
    for (std::size_t lo = 0; lo < 256; ++lo) {
      block[lo] = char(props_from_icu(UChar32(hi << 8 | lo)));
    }
    auto [it, inserted] = seen.try_emplace(block, std::uint16_t(seen.size()));
    if (inserted) stage2_.insert(stage2_.end(), block.begin(), block.end());
    stage1_[hi] = it->second;
  }
}

const UnicodeProps& UnicodeProps::get() {
  static const UnicodeProps table;
  return table;
}

}  // namespace tok::text
