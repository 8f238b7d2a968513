// The 32-value block formats: Q8_0, Q4_0, Q4_1, Q5_0, Q5_1.
//
// Error bounds of the reference rule (d the exact float scale, ds = f16(d)
// the stored one, |ds - d| <= |d| 2^-11; dequantization uses ds):
//  * q8_0: d = absmax / 127, q = round(x / d), so |x - q d| <= d / 2 and
//    |x - q ds| <= d / 2 + 127 |d - ds| <= d (1/2 + 127 * 2^-11) < 0.5625 d.
//  * q4_0: m = the value of largest magnitude, with its sign, d = m / -8,
//    q = min(15, trunc(x / d + 8.5)): round to nearest for x / d in
//    [-8, 7.5], error <= |d| / 2 + 8 |d - ds| <= |d| (1/2 + 2^-8). Values
//    of the sign opposite to m with x / d > 7.5 are clamped to 7 d: error
//    <= absmax - 7 |d| + 7 |d - ds| <= |d| (1 + 2^-8), reached when such a
//    value has m's magnitude. So max |error| <= absmax / 8 (1 + 2^-8).
// The stored-scale terms are what dividing by ds instead of d would save;
// llama.cpp divides by d, and tok follows it so that its files and KV rows
// are llama.cpp's, byte for byte.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "ggml/half.hpp"
#include "ggml/quants.hpp"

namespace tok::ggml {
namespace {

std::uint32_t load_qh(const std::uint8_t* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

void store_qh(std::uint8_t* p, std::uint32_t v) { std::memcpy(p, &v, 4); }

// trunc(v) clamped to [lo, hi], with NaN giving lo. A NaN or infinite input
// (a NaN key stored in a q4_0 KV cache) makes v NaN or huge, and converting
// such a float to int directly is undefined behaviour; for finite inputs the
// result is the clamp of the cast, as before.
int code(float v, int lo, int hi) {
  if (!(v > static_cast<float>(lo))) return lo;
  if (v >= static_cast<float>(hi)) return hi;
  return static_cast<int>(v);
}

// Scale and inverse for the symmetric types: m, the value of largest
// magnitude with its sign, maps to code -levels (ggml's "max / -8").
void symmetric_scale(const float* x, float levels, float& d, float& id) {
  float amax = 0, max = 0;
  for (int j = 0; j < kQK; ++j) {
    if (amax < std::fabs(x[j])) {
      amax = std::fabs(x[j]);
      max = x[j];
    }
  }
  d = max / -levels;
  id = d != 0 ? 1.0f / d : 0.0f;
}

// Scale, inverse and minimum for the affine types: [min, max] onto 0..levels.
void affine_scale(const float* x, float levels, float& d, float& id, float& min) {
  min = x[0];
  float max = x[0];
  for (int j = 1; j < kQK; ++j) {
    min = std::min(min, x[j]);
    max = std::max(max, x[j]);
  }
  d = (max - min) / levels;
  id = d != 0 ? 1.0f / d : 0.0f;
}

}  // namespace

void dequantize_row_q8_0(const BlockQ8_0* x, float* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n / kQK; ++i, y += kQK) {
    float d = fp16_to_f32(x[i].d);
    for (int j = 0; j < kQK; ++j) y[j] = d * x[i].qs[j];
  }
}

void dequantize_row_q4_0(const BlockQ4_0* x, float* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n / kQK; ++i, y += kQK) {
    float d = fp16_to_f32(x[i].d);
    for (int j = 0; j < kQK / 2; ++j) {
      y[j] = d * ((x[i].qs[j] & 0xF) - 8);
      y[j + kQK / 2] = d * ((x[i].qs[j] >> 4) - 8);
    }
  }
}

void dequantize_row_q4_1(const BlockQ4_1* x, float* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n / kQK; ++i, y += kQK) {
    float d = fp16_to_f32(x[i].d), m = fp16_to_f32(x[i].m);
    for (int j = 0; j < kQK / 2; ++j) {
      y[j] = d * (x[i].qs[j] & 0xF) + m;
      y[j + kQK / 2] = d * (x[i].qs[j] >> 4) + m;
    }
  }
}

void dequantize_row_q5_0(const BlockQ5_0* x, float* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n / kQK; ++i, y += kQK) {
    float d = fp16_to_f32(x[i].d);
    std::uint32_t qh = load_qh(x[i].qh);
    for (int j = 0; j < kQK / 2; ++j) {
      int lo = (x[i].qs[j] & 0xF) | static_cast<int>(((qh >> j) & 1) << 4);
      int hi = (x[i].qs[j] >> 4) | static_cast<int>(((qh >> (j + 16)) & 1) << 4);
      y[j] = d * (lo - 16);
      y[j + kQK / 2] = d * (hi - 16);
    }
  }
}

void dequantize_row_q5_1(const BlockQ5_1* x, float* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n / kQK; ++i, y += kQK) {
    float d = fp16_to_f32(x[i].d), m = fp16_to_f32(x[i].m);
    std::uint32_t qh = load_qh(x[i].qh);
    for (int j = 0; j < kQK / 2; ++j) {
      int lo = (x[i].qs[j] & 0xF) | static_cast<int>(((qh >> j) & 1) << 4);
      int hi = (x[i].qs[j] >> 4) | static_cast<int>(((qh >> (j + 16)) & 1) << 4);
      y[j] = d * lo + m;
      y[j + kQK / 2] = d * hi + m;
    }
  }
}

void quantize_row_q8_0(const float* x, BlockQ8_0* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n / kQK; ++i, x += kQK) {
    float amax = 0;
    for (int j = 0; j < kQK; ++j) amax = std::max(amax, std::fabs(x[j]));
    float d = amax / 127.0f, id = d != 0 ? 1.0f / d : 0.0f;
    y[i].d = f32_to_fp16(d);
    // roundf (half away from zero); |x * id| <= 127 by construction, up to
    // float rounding of id, which the clamp absorbs (NaN gives -127).
    for (int j = 0; j < kQK; ++j) {
      y[i].qs[j] = static_cast<std::int8_t>(code(std::round(x[j] * id), -127, 127));
    }
  }
}

void quantize_row_q4_0(const float* x, BlockQ4_0* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n / kQK; ++i, x += kQK) {
    float d, id;
    symmetric_scale(x, 8, d, id);
    y[i].d = f32_to_fp16(d);
    for (int j = 0; j < kQK / 2; ++j) {
      int a = code(x[j] * id + 8.5f, 0, 15);
      int b = code(x[kQK / 2 + j] * id + 8.5f, 0, 15);
      y[i].qs[j] = static_cast<std::uint8_t>(a | (b << 4));
    }
  }
}

void quantize_row_q4_1(const float* x, BlockQ4_1* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n / kQK; ++i, x += kQK) {
    float d, id, min;
    affine_scale(x, 15, d, id, min);
    y[i].d = f32_to_fp16(d);
    y[i].m = f32_to_fp16(min);
    for (int j = 0; j < kQK / 2; ++j) {
      int a = code((x[j] - min) * id + 0.5f, 0, 15);
      int b = code((x[kQK / 2 + j] - min) * id + 0.5f, 0, 15);
      y[i].qs[j] = static_cast<std::uint8_t>(a | (b << 4));
    }
  }
}

void quantize_row_q5_0(const float* x, BlockQ5_0* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n / kQK; ++i, x += kQK) {
    float d, id;
    symmetric_scale(x, 16, d, id);
    y[i].d = f32_to_fp16(d);
    std::uint32_t qh = 0;
    for (int j = 0; j < kQK / 2; ++j) {
      int a = code(x[j] * id + 16.5f, 0, 31);
      int b = code(x[kQK / 2 + j] * id + 16.5f, 0, 31);
      y[i].qs[j] = static_cast<std::uint8_t>((a & 0xF) | ((b & 0xF) << 4));
      qh |= static_cast<std::uint32_t>(a >> 4) << j | static_cast<std::uint32_t>(b >> 4)
                                                          << (j + 16);
    }
    store_qh(y[i].qh, qh);
  }
}

void quantize_row_q5_1(const float* x, BlockQ5_1* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n / kQK; ++i, x += kQK) {
    float d, id, min;
    affine_scale(x, 31, d, id, min);
    y[i].d = f32_to_fp16(d);
    y[i].m = f32_to_fp16(min);
    std::uint32_t qh = 0;
    for (int j = 0; j < kQK / 2; ++j) {
      int a = code((x[j] - min) * id + 0.5f, 0, 31);
      int b = code((x[kQK / 2 + j] - min) * id + 0.5f, 0, 31);
      y[i].qs[j] = static_cast<std::uint8_t>((a & 0xF) | ((b & 0xF) << 4));
      qh |= static_cast<std::uint32_t>(a >> 4) << j | static_cast<std::uint32_t>(b >> 4)
                                                          << (j + 16);
    }
    store_qh(y[i].qh, qh);
  }
}

}  // namespace tok::ggml
