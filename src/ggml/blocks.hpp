// ggml's block formats, byte-compatible with llama.cpp's ggml-common.h
// (QK_K = 256). One block holds `block_size` values; every scale is an fp16
// bit pattern (ggml/half.hpp). The value each block encodes is written next
// to its struct; ggml/quants.cpp and quants_k.cpp implement exactly that.
#pragma once

#include <cstdint>

namespace tok::ggml {

inline constexpr int kQK = 32;    // Q4_0, Q4_1, Q5_0, Q5_1, Q8_0 block size
inline constexpr int kQKK = 256;  // K-quant super-block size

struct BlockQ8_0 {
  std::uint16_t d;      // fp16 scale
  std::int8_t qs[kQK];  // value = d * qs[i]
};
struct BlockQ4_0 {
  std::uint16_t d;           // fp16 scale
  std::uint8_t qs[kQK / 2];  // value = d * (nibble - 8); low nibbles are 0..15, high 16..31
};
struct BlockQ4_1 {
  std::uint16_t d, m;        // fp16 scale and minimum
  std::uint8_t qs[kQK / 2];  // value = d * nibble + m, nibble order as Q4_0
};
struct BlockQ5_0 {
  std::uint16_t d;           // fp16 scale
  std::uint8_t qh[4];        // bit i: 5th bit of value i (a little-endian uint32)
  std::uint8_t qs[kQK / 2];  // low 4 bits as Q4_0; value = d * (q - 16)
};
struct BlockQ5_1 {
  std::uint16_t d, m;        // fp16 scale and minimum
  std::uint8_t qh[4];        // as Q5_0
  std::uint8_t qs[kQK / 2];  // value = d * q + m
};
// x = d * sc * q - dmin * m over 16 sub-blocks of 16 (4-bit sc and m).
struct BlockQ2_K {
  std::uint8_t scales[kQKK / 16];  // low nibble sc, high nibble m
  std::uint8_t qs[kQKK / 4];       // 2-bit quants
  std::uint16_t d, dmin;           // fp16 super-block scales
};
// x = d * (sc - 32) * (q - 4) over 16 sub-blocks of 16 (6-bit sc).
struct BlockQ3_K {
  std::uint8_t hmask[kQKK / 8];  // high bit of q (set: q >= 4)
  std::uint8_t qs[kQKK / 4];     // low 2 bits of q
  std::uint8_t scales[12];       // 16 x 6-bit scales, packed
  std::uint16_t d;               // fp16 super-block scale
};
// x = d * sc * q - dmin * m over 8 sub-blocks of 32 (6-bit sc and m).
struct BlockQ4_K {
  std::uint16_t d, dmin;      // fp16 super-block scales
  std::uint8_t scales[12];    // 8 x (6-bit scale, 6-bit min), packed
  std::uint8_t qs[kQKK / 2];  // 4-bit quants
};
// As Q4_K with a 5th bit per value.
struct BlockQ5_K {
  std::uint16_t d, dmin;      // fp16 super-block scales
  std::uint8_t scales[12];    // as Q4_K
  std::uint8_t qh[kQKK / 8];  // 5th bits
  std::uint8_t qs[kQKK / 2];  // low 4 bits
};
// x = d * sc * (q - 32) over 16 sub-blocks of 16 (8-bit signed sc).
struct BlockQ6_K {
  std::uint8_t ql[kQKK / 2];      // low 4 bits
  std::uint8_t qh[kQKK / 4];      // high 2 bits
  std::int8_t scales[kQKK / 16];  // 8-bit scales of 16-element groups
  std::uint16_t d;                // fp16 super-block scale
};
// Activations only (ggml's block_q8_K, the partner of the K-quants in
// llama.cpp's dot products): x = d * q, with the sums of each 16 q.
struct BlockQ8_K {
  float d;
  std::int8_t qs[kQKK];
  std::int16_t bsums[kQKK / 16];
};
static_assert(sizeof(BlockQ8_K) == 292);
static_assert(sizeof(BlockQ8_0) == 34 && sizeof(BlockQ4_0) == 18 && sizeof(BlockQ4_1) == 20);
static_assert(sizeof(BlockQ5_0) == 22 && sizeof(BlockQ5_1) == 24);
static_assert(sizeof(BlockQ2_K) == 84 && sizeof(BlockQ3_K) == 110 && sizeof(BlockQ4_K) == 144);
static_assert(sizeof(BlockQ5_K) == 176 && sizeof(BlockQ6_K) == 210);

// Q4_K and Q5_K pack eight 6-bit (scale, min) pairs into 12 bytes; pair j
// (ggml's get_scale_min_k4).
inline void scale_min_k4(int j, const std::uint8_t* q, std::uint8_t& d, std::uint8_t& m) {
  if (j < 4) {
    d = q[j] & 63;
    m = q[j + 4] & 63;
  } else {
    d = static_cast<std::uint8_t>((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
    m = static_cast<std::uint8_t>((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
  }
}

}  // namespace tok::ggml
