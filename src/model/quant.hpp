// Block formats of ggml's quantized types (byte-compatible with llama.cpp's
// ggml-common.h) and their scalar reference code: half/bfloat conversion,
// dequantization of a row, quantization to Q8_0 / Q4_0. The SIMD kernels in
// kernels_*.cpp must agree with these; the unit tests check that they do.
#pragma once

#include <cstdint>
#include <cstring>

#include "model/tensor.hpp"

namespace tok::model {

inline constexpr int kQK = 32;    // Q8_0 / Q4_0 block size
inline constexpr int kQKK = 256;  // K-quant super-block size

struct BlockQ8_0 {
  std::uint16_t d;       // fp16 scale
  std::int8_t qs[kQK];   // value = d * qs[i]
};
struct BlockQ4_0 {
  std::uint16_t d;           // fp16 scale
  std::uint8_t qs[kQK / 2];  // value = d * (nibble - 8); low nibbles are 0..15, high 16..31
};
struct BlockQ4_K {
  std::uint16_t d, dmin;        // fp16 super-block scales
  std::uint8_t scales[12];      // 8 x (6-bit scale, 6-bit min), packed
  std::uint8_t qs[kQKK / 2];    // 4-bit quants
};
struct BlockQ6_K {
  std::uint8_t ql[kQKK / 2];      // low 4 bits
  std::uint8_t qh[kQKK / 4];      // high 2 bits
  std::int8_t scales[kQKK / 16];  // 8-bit scales of 16-element groups
  std::uint16_t d;                // fp16 super-block scale
};
static_assert(sizeof(BlockQ8_0) == 34 && sizeof(BlockQ4_0) == 18);
static_assert(sizeof(BlockQ4_K) == 144 && sizeof(BlockQ6_K) == 210);

float fp16_to_f32(std::uint16_t h);
std::uint16_t f32_to_fp16(float f);  // round to nearest even
inline float bf16_to_f32(std::uint16_t h) {
  std::uint32_t u = static_cast<std::uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
std::uint16_t f32_to_bf16(float f);

// Q4_K packs eight 6-bit (scale, min) pairs into 12 bytes; pair j
// (ggml's get_scale_min_k4).
void scale_min_k4(int j, const std::uint8_t* q, std::uint8_t& d, std::uint8_t& m);

// Dequantizes one row of n elements (n a multiple of the block size).
void dequantize_row(DType type, const void* src, float* dst, std::int64_t n);
// ggml's reference quantizers (quantize_row_q8_0_ref / q4_0_ref).
void quantize_row_q8_0(const float* x, BlockQ8_0* y, std::int64_t n);
void quantize_row_q4_0(const float* x, BlockQ4_0* y, std::int64_t n);
// Activations to Q8_0 as ggml's SIMD quantize_row_q8_0 does (scale
// 127 / max|x|, round half to even); the AVX2 kernel agrees bit for bit.
void quantize_act_q8_0(const float* x, BlockQ8_0* y, std::int64_t n);

}  // namespace tok::model
