// Builds the two-stage property table of text/unicode_props.hpp from tok's
// Unicode tables. Run at build time by make_unicode_props (which writes the
// table into the library as constant data) and by the tests, which compare
// the two.
#pragma once

#include <cstdint>
#include <vector>

namespace tok::text {

// stage1: 0x1100 entries, one per 256-code-point block, each the index of a
// distinct 256-byte block of property bits in stage2.
void build_unicode_props(std::vector<std::uint16_t>& stage1, std::vector<std::uint8_t>& stage2);

}  // namespace tok::text
