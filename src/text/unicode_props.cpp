#include "text/unicode_props.hpp"

#include <unicode/uchar.h>

#include <cstring>
#include <map>
#include <string>

namespace tok::text {
namespace {

std::uint8_t props_of_category(UCharCategory category) {
  switch (category) {
    case U_UPPERCASE_LETTER:
    case U_TITLECASE_LETTER:
      return kPropLetter | kPropUpperish;
    case U_LOWERCASE_LETTER:
      return kPropLetter | kPropLowerish;
    case U_MODIFIER_LETTER:
    case U_OTHER_LETTER:
      return kPropLetter | kPropUpperish | kPropLowerish;
    case U_NON_SPACING_MARK:
    case U_ENCLOSING_MARK:
    case U_COMBINING_SPACING_MARK:
      return kPropMark | kPropUpperish | kPropLowerish;
    case U_DECIMAL_DIGIT_NUMBER:
    case U_LETTER_NUMBER:
    case U_OTHER_NUMBER:
      return kPropNumber;
    default:
      return 0;
  }
}

// u_enumCharTypes callback: fills [start, limit) with its category's bits.
UBool fill_range(const void* context, UChar32 start, UChar32 limit, UCharCategory category) {
  auto* all = static_cast<std::uint8_t*>(const_cast<void*>(context));
  std::memset(all + start, props_of_category(category), std::size_t(limit - start));
  return true;
}

// Every White_Space character is at or below U+3000 (a UCD invariant since
// Unicode 1.1), so the binary property is only queried up to there.
constexpr UChar32 kLastWhiteSpace = 0x3000;

}  // namespace

// Categories come by ranges (u_enumCharTypes), which takes about a
// millisecond instead of a million per-character calls.
UnicodeProps::UnicodeProps() : stage1_(0x110000 >> 8) {
  std::vector<std::uint8_t> all(0x110000);  // (code point) property bits
  u_enumCharTypes(fill_range, all.data());
  for (UChar32 cp = 0; cp <= kLastWhiteSpace; ++cp) {
    if (u_hasBinaryProperty(cp, UCHAR_WHITE_SPACE)) all[cp] |= kPropSpace;
  }
  std::map<std::string, std::uint16_t> seen;  // block contents -> index
  for (std::size_t hi = 0; hi < stage1_.size(); ++hi) {
    std::string block(reinterpret_cast<const char*>(all.data() + (hi << 8)), 256);
    auto [it, inserted] = seen.try_emplace(block, std::uint16_t(seen.size()));
    if (inserted) stage2_.insert(stage2_.end(), block.begin(), block.end());
    stage1_[hi] = it->second;
  }
}

}  // namespace tok::text
