// Activations to q8_K with AVX-512, bit for bit act_q8_k.cpp's scalar
// quantizers (ggml's quantize_row_q8_K_ref): the scalar loops were about 5%
// of a Q4_K prefill, and the row quantizer runs on every decode product of
// the Q4_K / Q6_K models.
//
// Same arithmetic as the scalar code, sixteen values at a time: the largest
// magnitude by vmaxps (max(|x|, acc) keeps acc when |x| is a NaN, as the
// scalar comparison does), the first value of that magnitude as the signed
// maximum, iscale * x rounded to nearest even by vcvtps2dq (the scalar code's
// nearest_int for |v| < 2^22; the product and the rounding are two separate
// steps, so no fused multiply-add can change the value), capped at 127.
// Integer sums are exact in any order.
//
// Compiled with -mavx512f -mavx512bw -mavx512vl (src/CMakeLists.txt); only
// the AVX-512 kernel set points to it.
#include "model/kernels.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include "model/avx512_prelude.hpp"

#include <cstring>

namespace tok::model {
namespace {

constexpr int kVecs = ggml::kQKK / 16;

// The first value of largest magnitude in x[0, kQKK), or 0 when all are 0.
inline float signed_max(const float* x) {
  __m512 acc = _mm512_setzero_ps();
  for (int v = 0; v < kVecs; ++v)
    acc = _mm512_max_ps(_mm512_abs_ps(_mm512_loadu_ps(x + 16 * v)), acc);
  const float amax = _mm512_reduce_max_ps(acc);
  if (amax == 0) return 0;
  const __m512 want = _mm512_set1_ps(amax);
  for (int v = 0;; ++v) {
    __m512 a = _mm512_abs_ps(_mm512_loadu_ps(x + 16 * v));
    if (__mmask16 m = _mm512_cmp_ps_mask(a, want, _CMP_EQ_OQ)) return x[16 * v + __builtin_ctz(m)];
  }
}

// Sixteen values times iscale, rounded to nearest even, capped at 127.
inline __m512i quantize16(const float* x, __m512 iscale) {
  return _mm512_min_epi32(_mm512_cvtps_epi32(_mm512_mul_ps(iscale, _mm512_loadu_ps(x))),
                          _mm512_set1_epi32(127));
}

}  // namespace

void quantize_q8_k_block16_avx512(const float* x, std::int16_t* q, float* d, float* sums) {
  const float max = signed_max(x);
  if (max == 0) {
    *d = 0;
    std::memset(q, 0, ggml::kQKK * sizeof *q);
    for (int b = 0; b < ggml::kQKK / ggml::kQK; ++b) sums[b] = 0;
    return;
  }
  const float iscale = -127.f / max;
  const __m512 vs = _mm512_set1_ps(iscale);
  *d = 1 / iscale;
  for (int b = 0; b < ggml::kQKK / ggml::kQK; ++b) {
    __m512i lo = quantize16(x + 32 * b, vs), hi = quantize16(x + 32 * b + 16, vs);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(q + 32 * b), _mm512_cvtepi32_epi16(lo));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(q + 32 * b + 16), _mm512_cvtepi32_epi16(hi));
    sums[b] = *d * static_cast<float>(_mm512_reduce_add_epi32(_mm512_add_epi32(lo, hi)));
  }
}

void quantize_q8_k_block_avx512(const float* x, ggml::BlockQ8_K* y) {
  const float max = signed_max(x);
  if (max == 0) {
    std::memset(y, 0, sizeof *y);
    return;
  }
  const float iscale = -127.f / max;
  const __m512 vs = _mm512_set1_ps(iscale);
  for (int v = 0; v < kVecs; ++v) {
    __m512i q = quantize16(x + 16 * v, vs);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y->qs + 16 * v), _mm512_cvtepi32_epi8(q));
    y->bsums[v] = static_cast<std::int16_t>(_mm512_reduce_add_epi32(q));
  }
  y->d = 1 / iscale;
}

}  // namespace tok::model

#endif
