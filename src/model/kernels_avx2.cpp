// AVX2 + FMA + F16C kernels (llama.cpp's approach for the integer dots:
// sign trick + maddubs). This file and kernels_avx2_gemm.cpp are compiled with
// -mavx2 -mfma -mf16c (src/CMakeLists.txt) so the rest of the binary stays
// baseline x86-64; avx2_kernels() says whether the CPU can run them.
#include "model/kernels.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include "core/cpu_features.hpp"
#include "ggml/half.hpp"
#include "model/simd_avx2.hpp"

namespace tok::model {

// kernels_avx2_gemm.cpp
void gemm_avx2(const DotKernels& k, const TensorView& w, std::int64_t r0, std::int64_t r1,
               const ActBatch& a, float* y, std::int64_t ldy);

// kernels_avx2_types.cpp
namespace avx2 {
float dot_q4_1(const ggml::BlockQ4_1* w, const ggml::BlockQ8_0* x, std::int64_t n);
float dot_q5_0(const ggml::BlockQ5_0* w, const ggml::BlockQ8_0* x, std::int64_t n);
float dot_q5_1(const ggml::BlockQ5_1* w, const ggml::BlockQ8_0* x, std::int64_t n);
float dot_q2_k(const ggml::BlockQ2_K* w, const ggml::BlockQ8_0* x, std::int64_t n);
float dot_q3_k(const ggml::BlockQ3_K* w, const ggml::BlockQ8_0* x, std::int64_t n);
float dot_q5_k(const ggml::BlockQ5_K* w, const ggml::BlockQ8_0* x, std::int64_t n);
float dot_q4_k_q8k(const ggml::BlockQ4_K* w, const ggml::BlockQ8_K* x, std::int64_t n);
float dot_q6_k_q8k(const ggml::BlockQ6_K* w, const ggml::BlockQ8_K* x, std::int64_t n);
float dot_q2_k_q8k(const ggml::BlockQ2_K* w, const ggml::BlockQ8_K* x, std::int64_t n);
float dot_q3_k_q8k(const ggml::BlockQ3_K* w, const ggml::BlockQ8_K* x, std::int64_t n);
float dot_q5_k_q8k(const ggml::BlockQ5_K* w, const ggml::BlockQ8_K* x, std::int64_t n);
}  // namespace avx2

namespace {

using namespace avx2;

float dot_f32(const float* w, const float* x, std::int64_t n) {
  __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
  std::int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    a0 = _mm256_fmadd_ps(_mm256_loadu_ps(w + i), _mm256_loadu_ps(x + i), a0);
    a1 = _mm256_fmadd_ps(_mm256_loadu_ps(w + i + 8), _mm256_loadu_ps(x + i + 8), a1);
    a2 = _mm256_fmadd_ps(_mm256_loadu_ps(w + i + 16), _mm256_loadu_ps(x + i + 16), a2);
    a3 = _mm256_fmadd_ps(_mm256_loadu_ps(w + i + 24), _mm256_loadu_ps(x + i + 24), a3);
  }
  for (; i + 8 <= n; i += 8)
    a0 = _mm256_fmadd_ps(_mm256_loadu_ps(w + i), _mm256_loadu_ps(x + i), a0);
  float s = hsum(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)));
  for (; i < n; ++i) s += w[i] * x[i];
  return s;
}

inline __m256 load_f16(const std::uint16_t* p) {
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}
inline __m256 load_bf16(const std::uint16_t* p) {
  __m256i v = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  return _mm256_castsi256_ps(_mm256_slli_epi32(v, 16));
}

template <__m256 (*Load)(const std::uint16_t*), float (*Scalar)(std::uint16_t)>
float dot_half(const std::uint16_t* w, const float* x, std::int64_t n) {
  __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
  std::int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    a0 = _mm256_fmadd_ps(Load(w + i), _mm256_loadu_ps(x + i), a0);
    a1 = _mm256_fmadd_ps(Load(w + i + 8), _mm256_loadu_ps(x + i + 8), a1);
    a2 = _mm256_fmadd_ps(Load(w + i + 16), _mm256_loadu_ps(x + i + 16), a2);
    a3 = _mm256_fmadd_ps(Load(w + i + 24), _mm256_loadu_ps(x + i + 24), a3);
  }
  for (; i + 8 <= n; i += 8) a0 = _mm256_fmadd_ps(Load(w + i), _mm256_loadu_ps(x + i), a0);
  float s = hsum(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)));
  for (; i < n; ++i) s += Scalar(w[i]) * x[i];
  return s;
}
float bf16_scalar(std::uint16_t h) { return ggml::bf16_to_f32(h); }

float dot_q8_0(const ggml::BlockQ8_0* w, const ggml::BlockQ8_0* x, std::int64_t n) {
  __m256 acc0 = _mm256_setzero_ps(), acc1 = acc0;
  std::int64_t nb = n / ggml::kQK, b = 0;
  for (; b + 2 <= nb; b += 2) {
    __m256i w0 = load256(w[b].qs), w1 = load256(w[b + 1].qs);
    __m256 p0 = dot_i8(_mm256_sign_epi8(w0, w0), w0, load256(x[b].qs));
    __m256 p1 = dot_i8(_mm256_sign_epi8(w1, w1), w1, load256(x[b + 1].qs));
    acc0 = _mm256_fmadd_ps(_mm256_set1_ps(half(w[b].d) * half(x[b].d)), p0, acc0);
    acc1 = _mm256_fmadd_ps(_mm256_set1_ps(half(w[b + 1].d) * half(x[b + 1].d)), p1, acc1);
  }
  for (; b < nb; ++b) {
    __m256i w0 = load256(w[b].qs);
    __m256 p0 = dot_i8(_mm256_sign_epi8(w0, w0), w0, load256(x[b].qs));
    acc0 = _mm256_fmadd_ps(_mm256_set1_ps(half(w[b].d) * half(x[b].d)), p0, acc0);
  }
  return hsum(_mm256_add_ps(acc0, acc1));
}

float dot_q4_0(const ggml::BlockQ4_0* w, const ggml::BlockQ8_0* x, std::int64_t n) {
  __m256 acc = _mm256_setzero_ps();
  for (std::int64_t b = 0; b < n / ggml::kQK; ++b) {
    __m256i v = q4_0_values(w[b].qs);
    __m256 p = dot_i8(_mm256_sign_epi8(v, v), v, load256(x[b].qs));
    acc = _mm256_fmadd_ps(_mm256_set1_ps(half(w[b].d) * half(x[b].d)), p, acc);
  }
  return hsum(acc);
}

// ggml's AVX2 quantize_row_q8_0: scale 127 / max|x|, round half to even.
void quantize_act_q8_0_avx2(const float* x, ggml::BlockQ8_0* y, std::int64_t n) {
  const __m256 sign_bit = _mm256_set1_ps(-0.0f);
  for (std::int64_t i = 0; i < n / ggml::kQK; ++i, x += ggml::kQK) {
    __m256 v[4];
    __m256 amax = _mm256_setzero_ps();
    for (int j = 0; j < 4; ++j) {
      v[j] = _mm256_loadu_ps(x + 8 * j);
      amax = _mm256_max_ps(amax, _mm256_andnot_ps(sign_bit, v[j]));
    }
    __m128 m4 = _mm_max_ps(_mm256_extractf128_ps(amax, 1), _mm256_castps256_ps128(amax));
    m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
    m4 = _mm_max_ss(m4, _mm_movehdup_ps(m4));
    float max = _mm_cvtss_f32(m4);
    y[i].d = ggml::f32_to_fp16(max / 127.0f);
    const __m256 mul = _mm256_set1_ps(max != 0.0f ? 127.0f / max : 0.0f);
    __m256i q[4];
    for (int j = 0; j < 4; ++j) {
      q[j] = _mm256_cvtps_epi32(
          _mm256_round_ps(_mm256_mul_ps(v[j], mul), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    }
    // packs interleave 128-bit lanes; the permute puts the 32 bytes back in order.
    __m256i p = _mm256_packs_epi16(_mm256_packs_epi32(q[0], q[1]), _mm256_packs_epi32(q[2], q[3]));
    p = _mm256_permutevar8x32_epi32(p, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y[i].qs), p);
  }
}

// Q4_K: each 32-element sub-block is d * sc * q - dmin * m (q a nibble), the
// formula of dequantize_row, vectorized; no dequantized buffer.
float dot_q4_k(const ggml::BlockQ4_K* w, const float* x, std::int64_t n) {
  __m256 acc = _mm256_setzero_ps();
  const __m256i low = _mm256_set1_epi32(0x0F);
  for (std::int64_t b = 0; b < n / ggml::kQKK; ++b, x += ggml::kQKK) {
    float d = half(w[b].d), dmin = half(w[b].dmin);
    const std::uint8_t* q = w[b].qs;
    for (int j = 0; j < ggml::kQKK / 64; ++j, q += 32) {
      std::uint8_t sc[2], m[2];
      for (int h = 0; h < 2; ++h) ggml::scale_min_k4(2 * j + h, w[b].scales, sc[h], m[h]);
      __m256 d1 = _mm256_set1_ps(d * sc[0]), m1 = _mm256_set1_ps(dmin * m[0]);
      __m256 d2 = _mm256_set1_ps(d * sc[1]), m2 = _mm256_set1_ps(dmin * m[1]);
      const float* xs = x + 64 * j;
      for (int l = 0; l < 32; l += 8) {
        __m256i v = bytes8(q + l);
        __m256 lo = _mm256_cvtepi32_ps(_mm256_and_si256(v, low));
        __m256 hi = _mm256_cvtepi32_ps(_mm256_srli_epi32(v, 4));
        acc = _mm256_fmadd_ps(_mm256_fmsub_ps(d1, lo, m1), _mm256_loadu_ps(xs + l), acc);
        acc = _mm256_fmadd_ps(_mm256_fmsub_ps(d2, hi, m2), _mm256_loadu_ps(xs + 32 + l), acc);
      }
    }
  }
  return hsum(acc);
}

// Q6_K: 6-bit values (4 low bits in ql, 2 high in qh) minus 32, times d and
// a signed 8-bit scale per 16 elements; the layout of dequantize_row.
float dot_q6_k(const ggml::BlockQ6_K* w, const float* x, std::int64_t n) {
  __m256 acc = _mm256_setzero_ps();
  const __m256i low = _mm256_set1_epi32(0x0F), three = _mm256_set1_epi32(3),
                off = _mm256_set1_epi32(32);
  for (std::int64_t b = 0; b < n / ggml::kQKK; ++b) {
    float d = half(w[b].d);
    const std::uint8_t* ql = w[b].ql;
    const std::uint8_t* qh = w[b].qh;
    const std::int8_t* sc = w[b].scales;
    for (int c = 0; c < ggml::kQKK; c += 128, ql += 64, qh += 32, sc += 8) {
      const float* xs = x + b * ggml::kQKK + c;
      for (int l = 0; l < 32; l += 8) {
        int is = l / 16;
        __m256i a = bytes8(ql + l), a2 = bytes8(ql + l + 32), h = bytes8(qh + l);
        __m256i q[4] = {
            _mm256_or_si256(_mm256_and_si256(a, low),
                            _mm256_slli_epi32(_mm256_and_si256(h, three), 4)),
            _mm256_or_si256(_mm256_and_si256(a2, low),
                            _mm256_slli_epi32(_mm256_and_si256(_mm256_srli_epi32(h, 2), three), 4)),
            _mm256_or_si256(_mm256_srli_epi32(a, 4),
                            _mm256_slli_epi32(_mm256_and_si256(_mm256_srli_epi32(h, 4), three), 4)),
            _mm256_or_si256(_mm256_srli_epi32(a2, 4),
                            _mm256_slli_epi32(_mm256_srli_epi32(h, 6), 4))};
        for (int k = 0; k < 4; ++k) {
          __m256 v = _mm256_cvtepi32_ps(_mm256_sub_epi32(q[k], off));
          __m256 scale = _mm256_set1_ps(d * sc[is + 2 * k]);
          acc = _mm256_fmadd_ps(_mm256_mul_ps(scale, v), _mm256_loadu_ps(xs + l + 32 * k), acc);
        }
      }
    }
  }
  return hsum(acc);
}

const DotKernels kAvx2{Isa::kAvx2,
                       dot_f32,
                       dot_half<load_f16, half>,
                       dot_half<load_bf16, bf16_scalar>,
                       dot_q8_0,
                       dot_q4_0,
                       dot_q4_k,
                       dot_q6_k,
                       quantize_act_q8_0_avx2,
                       gemm_avx2,
                       dot_by_dequant<dot_f32>,
                       avx2::dot_q4_1,
                       avx2::dot_q5_0,
                       avx2::dot_q5_1,
                       avx2::dot_q2_k,
                       avx2::dot_q3_k,
                       avx2::dot_q5_k,
                       avx2::dot_q4_k_q8k,
                       avx2::dot_q6_k_q8k,
                       avx2::dot_q2_k_q8k,
                       avx2::dot_q3_k_q8k,
                       avx2::dot_q5_k_q8k,
                       nullptr,  // q8_K activations: act_q8_k.cpp's loops
                       nullptr};

}  // namespace

const DotKernels* avx2_kernels() {
  const CpuFeatures& cpu = cpu_features();
  return cpu.avx2 && cpu.fma && cpu.f16c ? &kAvx2 : nullptr;
}

}  // namespace tok::model

#else
namespace tok::model {
const DotKernels* avx2_kernels() { return nullptr; }
}  // namespace tok::model
#endif
