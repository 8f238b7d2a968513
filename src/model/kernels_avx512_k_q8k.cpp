// AVX-512 VNNI kernels for Q2_K, Q3_K and Q5_K rows on Q8_K activations
// (decode, one token): the integer sums of ggml's vec_dot_q2_K_q8_K /
// q3_K_q8_K / q5_K_q8_K, so that a token's products are llama.cpp's up to
// the order of the float steps. The Q8_0-activation kernels of
// kernels_avx512_types.cpp took a float multiply-add per 16 or 32 values;
// here a whole super-block is summed in int32 and takes one.
//
// Per 64 values: the codes (unsigned, 0..3, 0..7 or 0..31) times the
// activation bytes by vpmaddubsw (pairs summed into int16: at most
// 2 * 31 * 127, no saturation), then vpdpwssd with the sub-block scales
// spread over the int16 lanes (pairs summed into int32 and accumulated).
// A register of 64 activation bytes covers Q2_K / Q3_K sub-blocks
// 4p .. 4p + 3 (one per 128-bit lane) and Q5_K sub-blocks 2p, 2p + 1 (one
// per 256-bit half). The terms with the activations' 16-value sums (Q2_K /
// Q5_K mins, Q3_K's offset of -4) are one vpmaddwd of the scales with the
// Q8_K block's bsums.
//
// Compiled with the AVX-512 kernel files' flags (src/CMakeLists.txt); only
// the AVX-512 set points to these.
#include "model/kernels.hpp"
#include "model/kernels_avx512_types.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include "model/avx512_k_blocks.hpp"
#include "model/avx512_prelude.hpp"

namespace tok::model::avx512 {
namespace {

inline __m256i load32(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
inline __m128i load16(const void* p) { return _mm_loadu_si128(static_cast<const __m128i*>(p)); }

// int16 lanes 8i .. 8i + 7 = scale first + i of the 16 in s (i < 4): one
// 16-value sub-block per 128-bit lane.
inline __m512i spread16(__m256i s, int first) {
  const __m512i idx = _mm512_add_epi16(
      _mm512_set1_epi16(static_cast<short>(first)),
      _mm512_set_epi64(0x0003000300030003, 0x0003000300030003, 0x0002000200020002,
                       0x0002000200020002, 0x0001000100010001, 0x0001000100010001, 0, 0));
  return _mm512_permutexvar_epi16(idx, _mm512_castsi256_si512(s));
}

// int16 lanes 0-15 = scale j of s, 16-31 = scale j + 1: one 32-value
// sub-block per 256-bit half.
inline __m512i spread32(__m256i s, int j) {
  const __m512i idx =
      _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_set1_epi16(static_cast<short>(j))),
                         _mm256_set1_epi16(static_cast<short>(j + 1)), 1);
  return _mm512_permutexvar_epi16(idx, _mm512_castsi256_si512(s));
}

// isum + codes . x with the scales per int16 lane.
inline __m512i scaled_dot(__m512i isum, __m512i codes, const std::int8_t* x, __m512i scales) {
  const __m512i pairs = _mm512_maddubs_epi16(codes, _mm512_loadu_si512(x));
  return _mm512_dpwssd_epi32(isum, pairs, scales);
}

// The sum of the eight int32 lanes of v.
inline int hsum8(__m256i v) {
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  s = _mm_add_epi32(s, _mm_unpackhi_epi64(s, s));
  return _mm_cvtsi128_si32(_mm_add_epi32(s, _mm_shuffle_epi32(s, 1)));
}

inline __m256i bsums(const ggml::BlockQ8_K& x) { return load32(x.bsums); }

}  // namespace

// Q2_K: sum_j sc_j (codes . x over sub-block j), less dmin sum_j m_j bsums_j.
float dot_q2_k_q8k(const ggml::BlockQ2_K* w, const ggml::BlockQ8_K* x, std::int64_t n) {
  __m512 acc = _mm512_setzero_ps();
  float mins = 0;
  for (std::int64_t b = 0; b < n / ggml::kQKK; ++b) {
    const __m128i sm = load16(w[b].scales);
    const __m128i low = _mm_set1_epi8(0x0F);
    const __m256i sc = _mm256_cvtepu8_epi16(_mm_and_si128(sm, low));
    const __m256i m = _mm256_cvtepu8_epi16(_mm_and_si128(_mm_srli_epi16(sm, 4), low));
    __m512i isum = _mm512_setzero_si512();
#pragma GCC unroll 4
    for (int p = 0; p < 4; ++p) {
      const __m512i codes = codes2(w[b].qs + 32 * (p / 2), 4 * (p % 2), 2, 3);
      isum = scaled_dot(isum, codes, x[b].qs + 64 * p, spread16(sc, 4 * p));
    }
    const float dx = x[b].d;
    acc = _mm512_fmadd_ps(_mm512_set1_ps(dx * _cvtsh_ss(w[b].d)), _mm512_cvtepi32_ps(isum), acc);
    mins +=
        dx * _cvtsh_ss(w[b].dmin) * static_cast<float>(hsum8(_mm256_madd_epi16(m, bsums(x[b]))));
  }
  return _mm512_reduce_add_ps(acc) - mins;
}

// Q3_K: codes q + 4 in 0..7 (the high bit set: no offset), so
// sum_j sc_j (codes . x - 4 bsums_j) with signed 6-bit scales.
float dot_q3_k_q8k(const ggml::BlockQ3_K* w, const ggml::BlockQ8_K* x, std::int64_t n) {
  __m512 acc = _mm512_setzero_ps();
  const __m512i four = _mm512_set1_epi8(4);
  for (std::int64_t b = 0; b < n / ggml::kQKK; ++b) {
    const __m256i sc = _mm256_cvtepi8_epi16(q3_k_scales(w[b].scales));
    __m512i isum = _mm512_setzero_si512();
#pragma GCC unroll 4
    for (int p = 0; p < 4; ++p) {
      const int h = p / 2, s = 2 * (p % 2);
      __m512i codes = codes2(w[b].qs + 32 * h, 2 * s, 2, 3);
      codes = _mm512_mask_add_epi8(codes, bits2(w[b].hmask, 4 * h + s), codes, four);
      isum = scaled_dot(isum, codes, x[b].qs + 64 * p, spread16(sc, 4 * p));
    }
    const __m256i offset = _mm256_slli_epi32(_mm256_madd_epi16(sc, bsums(x[b])), 2);
    isum = _mm512_sub_epi32(isum, _mm512_zextsi256_si512(offset));
    acc =
        _mm512_fmadd_ps(_mm512_set1_ps(x[b].d * _cvtsh_ss(w[b].d)), _mm512_cvtepi32_ps(isum), acc);
  }
  return _mm512_reduce_add_ps(acc);
}

// Q5_K: codes nibble + 16 * 5th bit, sum_j sc_j (codes . x over sub-block
// j), less dmin sum_j m_j (bsums_2j + bsums_2j+1); scales and mins
// unpacked as llama.cpp does.
float dot_q5_k_q8k(const ggml::BlockQ5_K* w, const ggml::BlockQ8_K* x, std::int64_t n) {
  __m512 acc = _mm512_setzero_ps();
  float mins = 0;
  const __m512i sixteen = _mm512_set1_epi8(0x10);
  for (std::int64_t b = 0; b < n / ggml::kQKK; ++b) {
    const __m128i sm = k4_scales_mins(w[b].scales);  // bytes 0-7: sc_0..7, 8-15: m_0..7
    const __m256i sc = _mm256_cvtepu8_epi16(sm);
    const __m128i m8 = _mm_cvtepu8_epi16(_mm_srli_si128(sm, 8));  // m_0..7 as int16
    const __m256i m = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_unpacklo_epi16(m8, m8)),
                                              _mm_unpackhi_epi16(m8, m8), 1);  // m_j twice
    __m512i isum = _mm512_setzero_si512();
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) {
      __m512i codes = codes2(w[b].qs + 32 * k, 0, 4, 0x0F);
      codes = _mm512_mask_add_epi8(codes, bits2(w[b].qh, 2 * k), codes, sixteen);
      isum = scaled_dot(isum, codes, x[b].qs + 64 * k, spread32(sc, 2 * k));
    }
    const float dx = x[b].d;
    acc = _mm512_fmadd_ps(_mm512_set1_ps(dx * _cvtsh_ss(w[b].d)), _mm512_cvtepi32_ps(isum), acc);
    mins +=
        dx * _cvtsh_ss(w[b].dmin) * static_cast<float>(hsum8(_mm256_madd_epi16(m, bsums(x[b]))));
  }
  return _mm512_reduce_add_ps(acc) - mins;
}

}  // namespace tok::model::avx512

#endif
