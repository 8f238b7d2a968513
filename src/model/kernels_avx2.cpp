// AVX2 + FMA + F16C kernels (llama.cpp's approach for the integer dots:
// sign trick + maddubs). Compiled with target attributes so the rest of the
// binary stays baseline x86-64; avx2_kernels() says whether the CPU can run them.
#include "model/kernels.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#include <cpuid.h>

namespace tok::model {
namespace {

#pragma GCC push_options
#pragma GCC target("avx2,fma,f16c")

inline float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

inline float half(std::uint16_t h) { return _cvtsh_ss(h); }

float dot_f32(const float* w, const float* x, std::int64_t n) {
  __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
  std::int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    a0 = _mm256_fmadd_ps(_mm256_loadu_ps(w + i), _mm256_loadu_ps(x + i), a0);
    a1 = _mm256_fmadd_ps(_mm256_loadu_ps(w + i + 8), _mm256_loadu_ps(x + i + 8), a1);
    a2 = _mm256_fmadd_ps(_mm256_loadu_ps(w + i + 16), _mm256_loadu_ps(x + i + 16), a2);
    a3 = _mm256_fmadd_ps(_mm256_loadu_ps(w + i + 24), _mm256_loadu_ps(x + i + 24), a3);
  }
  for (; i + 8 <= n; i += 8) a0 = _mm256_fmadd_ps(_mm256_loadu_ps(w + i), _mm256_loadu_ps(x + i), a0);
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
float bf16_scalar(std::uint16_t h) { return bf16_to_f32(h); }

// Sum of 32 int8 products as 8 floats: |x| * sign(y, x) keeps maddubs's
// unsigned-by-signed form exact for Q8_0 ranges.
inline __m256 mul_sum_i8(__m256i x, __m256i y) {
  __m256i ax = _mm256_sign_epi8(x, x);
  __m256i sy = _mm256_sign_epi8(y, x);
  __m256i dot16 = _mm256_maddubs_epi16(ax, sy);
  return _mm256_cvtepi32_ps(_mm256_madd_epi16(dot16, _mm256_set1_epi16(1)));
}

float dot_q8_0(const BlockQ8_0* w, const BlockQ8_0* x, std::int64_t n) {
  __m256 acc0 = _mm256_setzero_ps(), acc1 = acc0;
  std::int64_t nb = n / kQK, b = 0;
  for (; b + 2 <= nb; b += 2) {
    __m256i w0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w[b].qs));
    __m256i x0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[b].qs));
    __m256i w1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w[b + 1].qs));
    __m256i x1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[b + 1].qs));
    acc0 = _mm256_fmadd_ps(_mm256_set1_ps(half(w[b].d) * half(x[b].d)), mul_sum_i8(w0, x0), acc0);
    acc1 = _mm256_fmadd_ps(_mm256_set1_ps(half(w[b + 1].d) * half(x[b + 1].d)), mul_sum_i8(w1, x1),
                           acc1);
  }
  for (; b < nb; ++b) {
    __m256i w0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w[b].qs));
    __m256i x0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[b].qs));
    acc0 = _mm256_fmadd_ps(_mm256_set1_ps(half(w[b].d) * half(x[b].d)), mul_sum_i8(w0, x0), acc0);
  }
  return hsum(_mm256_add_ps(acc0, acc1));
}

// 16 bytes of nibbles -> 32 bytes: low nibbles (elements 0..15), then high (16..31).
inline __m256i unpack_nibbles(const std::uint8_t* p) {
  __m128i t = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  __m256i b = _mm256_set_m128i(_mm_srli_epi16(t, 4), t);
  return _mm256_and_si256(b, _mm256_set1_epi8(0x0F));
}

float dot_q4_0(const BlockQ4_0* w, const BlockQ8_0* x, std::int64_t n) {
  __m256 acc = _mm256_setzero_ps();
  const __m256i off = _mm256_set1_epi8(8);
  for (std::int64_t b = 0; b < n / kQK; ++b) {
    __m256i q = _mm256_sub_epi8(unpack_nibbles(w[b].qs), off);
    __m256i y = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[b].qs));
    acc = _mm256_fmadd_ps(_mm256_set1_ps(half(w[b].d) * half(x[b].d)), mul_sum_i8(q, y), acc);
  }
  return hsum(acc);
}

template <class Block, DType kType>
float dot_k(const Block* w, const float* x, std::int64_t n) {
  alignas(32) float buf[kQKK];
  float s = 0;
  for (std::int64_t b = 0; b < n / kQKK; ++b) {
    dequantize_row(kType, &w[b], buf, kQKK);
    s += dot_f32(buf, x + b * kQKK, kQKK);
  }
  return s;
}

#pragma GCC pop_options

const DotKernels kAvx2{Isa::kAvx2,
                       dot_f32,
                       dot_half<load_f16, half>,
                       dot_half<load_bf16, bf16_scalar>,
                       dot_q8_0,
                       dot_q4_0,
                       dot_k<BlockQ4_K, DType::kQ4_K>,
                       dot_k<BlockQ6_K, DType::kQ6_K>,
                       quantize_row_q8_0};

}  // namespace

// F16C through CPUID leaf 1 (ECX bit 29): clang 14's __builtin_cpu_supports
// does not know "f16c".
bool cpu_has_f16c() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  return __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 29)) != 0;
}

const DotKernels* avx2_kernels() {
  static const bool ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                         cpu_has_f16c();
  return ok ? &kAvx2 : nullptr;
}

}  // namespace tok::model

#else
namespace tok::model {
const DotKernels* avx2_kernels() { return nullptr; }
}  // namespace tok::model
#endif
