// Small AVX2 helpers shared by the AVX2 kernel files. Include only from files
// compiled with -mavx2 -mfma -mf16c (see src/CMakeLists.txt); their code runs
// only after avx2_kernels() has checked the CPU.
#pragma once

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#include <cstdint>

namespace tok::model::avx2 {

inline float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

inline float half(std::uint16_t h) { return _cvtsh_ss(h); }

inline __m256i load256(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }

// 8 bytes -> 8 int32 lanes.
inline __m256i bytes8(const std::uint8_t* p) {
  return _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
}

// 16 bytes of nibbles -> 32 bytes in [0, 15]: low nibbles are elements
// 0..15, high nibbles 16..31 (the 32-value block formats' order).
inline __m256i nibbles(const std::uint8_t* p) {
  __m128i t = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  __m256i b = _mm256_set_m128i(_mm_srli_epi16(t, 4), t);
  return _mm256_and_si256(b, _mm256_set1_epi8(0x0F));
}

// 16 bytes of Q4_0 nibbles -> 32 signed bytes in [-8, 7].
inline __m256i q4_0_values(const std::uint8_t* p) {
  return _mm256_sub_epi8(nibbles(p), _mm256_set1_epi8(8));
}

// Sum of 32 int8 products as 8 floats, given the weights w, |w| and the
// activations x: maddubs wants one unsigned operand, so it multiplies |w| by
// x with w's sign. The sign goes on the activations because tok quantizes
// them into [-127, 127]: a weight byte of -128 (legal in a Q8_0 file) has
// |w| = 128 as an unsigned byte, while negating it would overflow. Exact: a
// pair of products is at most 2 * 128 * 127 < 32768.
inline __m256 dot_i8(__m256i abs_w, __m256i w, __m256i x) {
  __m256i dot16 = _mm256_maddubs_epi16(abs_w, _mm256_sign_epi8(x, w));
  return _mm256_cvtepi32_ps(_mm256_madd_epi16(dot16, _mm256_set1_epi16(1)));
}

}  // namespace tok::model::avx2

#endif
