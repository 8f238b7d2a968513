// IEEE 754 binary16 and bfloat16 <-> binary32 conversion in portable C++ (no
// F16C, no _Float16), so that f16 weights, f16 KV rows and the f16 scales of
// every block format give the same bits on every machine. float -> half and
// float -> bfloat round to nearest, ties to even, with subnormals, infinities
// and NaN handled as IEEE specifies (a NaN stays a quiet NaN).
#pragma once

#include <cstdint>
#include <cstring>

namespace tok::ggml {

std::uint16_t f32_to_fp16(float f);
float fp16_to_f32(std::uint16_t h);
std::uint16_t f32_to_bf16(float f);
inline float bf16_to_f32(std::uint16_t h) {
  std::uint32_t u = static_cast<std::uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// n little-endian halves at src to floats: fp16_to_f32 of each, read from a
// table of all 65,536 values (256 KiB, made on first use). f16 KV rows are
// converted on every attention read, and the branchy conversion made f16
// decode half as fast as f32.
void halves_to_floats(const std::uint8_t* src, int n, float* dst);

}  // namespace tok::ggml
