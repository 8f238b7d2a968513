#include "ggml/half.hpp"

#include <bit>
#include <vector>

namespace tok::ggml {

std::uint16_t f32_to_fp16(float f) {
  std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  std::uint32_t sign = (x >> 16) & 0x8000u;
  std::uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // inf or NaN: keep NaN a (quiet) NaN
    return static_cast<std::uint16_t>(sign | 0x7c00u |
                                      (abs > 0x7f800000u ? 0x200u | ((abs >> 13) & 0x3ffu) : 0u));
  }
  if (abs >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // rounds past 65504
  if (abs < 0x38800000u) {
    // Below the smallest normal half (2^-14): a subnormal half counts units
    // of 2^-24. Shift the full significand and round to nearest even.
    if (abs < 0x33000000u) return static_cast<std::uint16_t>(sign);  // below half of 2^-24
    std::uint32_t exp = abs >> 23;
    std::uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
    std::uint32_t shift = 126u - exp;  // 14 + 23 - (exp - 127) - 24 + ... = 126 - exp
    std::uint32_t half_mant = mant >> shift;
    std::uint32_t rem = mant & ((1u << shift) - 1u);
    std::uint32_t halfway = 1u << (shift - 1u);
    if (rem > halfway || (rem == halfway && (half_mant & 1u))) ++half_mant;
    return static_cast<std::uint16_t>(sign | half_mant);
  }
  // Normal: rebias the exponent (127 -> 15) and round 23 -> 10 mantissa bits;
  // a carry out of the mantissa correctly bumps the exponent.
  std::uint32_t h = ((abs - 0x38000000u) >> 13);
  std::uint32_t rem = abs & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
  return static_cast<std::uint16_t>(sign | h);
}

float fp16_to_f32(std::uint16_t h) {
  std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  std::uint32_t exp = (h >> 10) & 0x1fu;
  std::uint32_t mant = h & 0x3ffu;
  std::uint32_t x;
  if (exp == 0x1fu) {
    x = sign | 0x7f800000u | (mant << 13);
  } else if (exp != 0) {
    x = sign | ((exp + 112u) << 23) | (mant << 13);
  } else if (mant == 0) {
    x = sign;
  } else {
    // Subnormal half: normalize into a float (every half subnormal is a normal float).
    int e = -1;
    do {
      mant <<= 1;
      ++e;
    } while ((mant & 0x400u) == 0);
    x = sign | ((112u - static_cast<std::uint32_t>(e)) << 23) | ((mant & 0x3ffu) << 13);
  }
  return std::bit_cast<float>(x);
}

std::uint16_t f32_to_bf16(float f) {
  std::uint32_t u = std::bit_cast<std::uint32_t>(f);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return static_cast<std::uint16_t>((u >> 16) | 64);  // quiet NaN
  return static_cast<std::uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

void halves_to_floats(const std::uint8_t* src, int n, float* dst) {
  static const std::vector<float> table = [] {
    std::vector<float> t(65536);
    for (std::uint32_t h = 0; h < 65536; ++h) t[h] = fp16_to_f32(static_cast<std::uint16_t>(h));
    return t;
  }();
  const float* t = table.data();
  for (int i = 0; i < n; ++i) {
    dst[i] = t[static_cast<std::uint32_t>(src[2 * i]) |
               (static_cast<std::uint32_t>(src[2 * i + 1]) << 8)];
  }
}

}  // namespace tok::ggml
