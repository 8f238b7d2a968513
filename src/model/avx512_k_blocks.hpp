// Unpacking of K-quant super-blocks shared by the AVX-512 kernel files
// (decode on Q8_0 and Q8_K activations, prompt tiles): one definition of
// ggml's scale layouts and of the code and high-bit extraction.
// Include only inside the file's `#if defined(__x86_64__) || defined(__i386__)`,
// and only from files compiled with the AVX-512 flags: the functions have internal linkage, so each
// file keeps its own copy built for its own instruction set (docs/platforms.md).
#pragma once

#include "model/avx512_prelude.hpp"

#include <cstdint>
#include <cstring>

namespace tok::model {
namespace {

// The 8 scales and 8 mins of a Q4_K or Q5_K super-block (6 bits each, packed
// in 12 bytes as ggml's get_scale_min_k4) as bytes: scales in 0-7, mins in
// 8-15 (llama.cpp's 32-bit mask form of the unpacking).
inline __m128i k4_scales_mins(const std::uint8_t* packed) {
  std::uint32_t u[4];
  std::memcpy(u, packed, 12);
  constexpr std::uint32_t kLow6 = 0x3f3f3f3f, kLow4 = 0x0f0f0f0f, kLow2 = 0x03030303;
  u[3] = ((u[2] >> 4) & kLow4) | (((u[1] >> 6) & kLow2) << 4);
  const std::uint32_t mins_low = u[1] & kLow6;
  u[1] = (u[2] & kLow4) | (((u[0] >> 6) & kLow2) << 4);
  u[2] = mins_low;
  u[0] &= kLow6;
  return _mm_setr_epi32(static_cast<int>(u[0]), static_cast<int>(u[1]), static_cast<int>(u[2]),
                        static_cast<int>(u[3]));
}

// The 16 signed 6-bit scales of a Q3_K super-block, centred (-32 .. 31), as
// bytes. llama.cpp's unpacking: scale j's low 4 bits in byte j % 8 (low
// nibble for j < 8), its high 2 bits in byte 8 + j % 4 at bit 2 (j / 4).
inline __m128i q3_k_scales(const std::uint8_t* packed) {
  std::uint32_t a[3];
  std::memcpy(a, packed, 12);
  const std::uint32_t low = 0x0F0F0F0F, two = 0x03030303;
  const __m128i s8 =
      _mm_setr_epi32(static_cast<int>((a[0] & low) | ((a[2] & two) << 4)),
                     static_cast<int>((a[1] & low) | (((a[2] >> 2) & two) << 4)),
                     static_cast<int>(((a[0] >> 4) & low) | (((a[2] >> 4) & two) << 4)),
                     static_cast<int>(((a[1] >> 4) & low) | (((a[2] >> 6) & two) << 4)));
  return _mm_sub_epi8(s8, _mm_set1_epi8(32));
}

// Two sub-blocks of 32 codes from the same 32 bytes of p: bits `shift` ..
// (bytes 0-31) and bits shift + step .. (bytes 32-63), masked to `mask`.
inline __m512i codes2(const std::uint8_t* p, int shift, int step, char mask) {
  const __m256i bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  __m512i v = _mm512_srli_epi16(_mm512_broadcast_i64x4(bytes), static_cast<unsigned>(shift));
  v = _mm512_mask_blend_epi64(0xF0, v, _mm512_srli_epi16(v, static_cast<unsigned>(step)));
  return _mm512_and_si512(v, _mm512_set1_epi8(mask));
}

// Bytes of the 32 at p with bit `bit` set (bytes 0-31) or bit `bit` + 1
// (bytes 32-63): the high bits of Q5_K and Q3_K.
inline __mmask64 bits2(const std::uint8_t* p, int bit) {
  const __m256i bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  const __m512i test =
      _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_set1_epi8(static_cast<char>(1 << bit))),
                         _mm256_set1_epi8(static_cast<char>(1 << (bit + 1))), 1);
  return _mm512_test_epi8_mask(_mm512_broadcast_i64x4(bytes), test);
}

}  // namespace
}  // namespace tok::model
