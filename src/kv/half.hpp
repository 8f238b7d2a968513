// IEEE 754 binary16 <-> binary32 conversion in portable C++ (no F16C, no
// _Float16), so that f16 KV storage and the f16 scales of q8_0/q4_0 blocks
// give the same bits on every machine. float -> half rounds to nearest, ties
// to even, with subnormals, infinities and NaN handled as IEEE specifies.
#pragma once

#include <cstdint>

namespace tok::kv {

std::uint16_t float_to_half(float f);
float half_to_float(std::uint16_t h);
// n little-endian halves at src to floats: half_to_float of each, read from
// a table of all 65,536 values (256 KiB, made on first use). f16 KV rows are
// converted on every attention read, and the branchy conversion made f16
// decode half as fast as f32.
void halves_to_floats(const std::uint8_t* src, int n, float* dst);

}  // namespace tok::kv
