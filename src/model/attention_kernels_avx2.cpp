// AVX2 + FMA attention kernels (attention_kernels.hpp). Compiled with -mavx2
// -mfma (src/CMakeLists.txt) and used only after avx2_attention_kernels() has
// checked the CPU.
//
// Scores take eight keys at a time per query head: eight register sums over
// the head, then one transposing reduction (hadd tree) turns them into the
// eight scores, where a horizontal sum per key cost about as much as the
// key's multiply-adds (64-value heads). Heads that are not a multiple of 8
// values go through the scalar code.
#include "model/attention_kernels.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <algorithm>

#include "model/attention_reduce.hpp"
#include "model/simd_avx2.hpp"

namespace tok::model {
namespace {

using namespace avx2;

inline const float* key_at(const std::uint8_t* keys, std::size_t stride, int j) {
  return reinterpret_cast<const float*>(keys + static_cast<std::size_t>(j) * stride);
}

void scores_avx2(const float* q, int group, std::int64_t hd, const std::uint8_t* keys,
                 std::size_t key_stride, int n, float scale, float* s, std::size_t s_stride) {
  if (hd % 8 != 0)
    return scalar_attention_kernels().scores(q, group, hd, keys, key_stride, n, scale, s, s_stride);
  const __m256 vscale = _mm256_set1_ps(scale);
  int j = 0;
  for (; j + 8 <= n; j += 8) {
    const float* k[8];
    for (int u = 0; u < 8; ++u) k[u] = key_at(keys, key_stride, j + u);
    for (int g = 0; g < group; ++g) {
      const float* qg = q + g * hd;
      __m256 acc[8];
      for (int u = 0; u < 8; ++u) acc[u] = _mm256_setzero_ps();
      for (std::int64_t i = 0; i < hd; i += 8) {
        __m256 qv = _mm256_loadu_ps(qg + i);
        for (int u = 0; u < 8; ++u) acc[u] = _mm256_fmadd_ps(qv, _mm256_loadu_ps(k[u] + i), acc[u]);
      }
      _mm256_storeu_ps(s + static_cast<std::size_t>(g) * s_stride + j,
                       _mm256_mul_ps(reduce8(acc), vscale));
    }
  }
  for (; j < n; ++j) {
    const float* k = key_at(keys, key_stride, j);
    for (int g = 0; g < group; ++g) {
      const float* qg = q + g * hd;
      __m256 acc = _mm256_setzero_ps();
      for (std::int64_t i = 0; i < hd; i += 8)
        acc = _mm256_fmadd_ps(_mm256_loadu_ps(qg + i), _mm256_loadu_ps(k + i), acc);
      s[static_cast<std::size_t>(g) * s_stride + j] = sum_as_reduce8(acc) * scale;
    }
  }
}

// 32 outputs at a time in four registers, then 8, then the scalar tail.
void accumulate_head(const float* a, const float* const* v, int n, float* out, std::int64_t hd) {
  std::int64_t i0 = 0;
  for (; i0 + 32 <= hd; i0 += 32) {
    __m256 acc[4];
    for (int u = 0; u < 4; ++u) acc[u] = _mm256_loadu_ps(out + i0 + 8 * u);
    for (int j = 0; j < n; ++j) {
      __m256 aj = _mm256_set1_ps(a[j]);
      for (int u = 0; u < 4; ++u)
        acc[u] = _mm256_fmadd_ps(aj, _mm256_loadu_ps(v[j] + i0 + 8 * u), acc[u]);
    }
    for (int u = 0; u < 4; ++u) _mm256_storeu_ps(out + i0 + 8 * u, acc[u]);
  }
  for (; i0 + 8 <= hd; i0 += 8) {
    __m256 acc = _mm256_loadu_ps(out + i0);
    for (int j = 0; j < n; ++j)
      acc = _mm256_fmadd_ps(_mm256_set1_ps(a[j]), _mm256_loadu_ps(v[j] + i0), acc);
    _mm256_storeu_ps(out + i0, acc);
  }
  for (; i0 < hd; ++i0) {
    for (int j = 0; j < n; ++j) out[i0] += a[j] * v[j][i0];
  }
}

// e^x for x <= 0 (softmax's x - max), eight at a time: x = n ln2 + r with
// n = round(x log2 e) and |r| <= ln2 / 2 (ln2 in two parts, Cephes' expf),
// e^r by Cephes' degree-6 polynomial (about 1 ulp), times 2^n built in the
// exponent field. Inputs below -87 (e^x under 2^-126, nothing next to the
// maximum's 1) are clamped there, so 2^n stays a normal float; NaN stays
// NaN. The scalar loop's libm expf calls were 6% of a 512-token prefill of
// the 100M model (softmax 8% more), as much as all of attention's multiply-adds.
inline __m256 exp_nonpositive(__m256 x) {
  x = _mm256_max_ps(_mm256_set1_ps(-87.0f), x);  // x when x is NaN
  __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
                             _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
  __m256 p = _mm256_set1_ps(1.9875691500e-4f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
  __m256 e = _mm256_fmadd_ps(_mm256_mul_ps(p, r), r, _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
  __m256i pow2 =
      _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(e, _mm256_castsi256_ps(pow2));
}

void softmax_avx2(float* x, std::int64_t n) {
  std::int64_t i = 0;
  __m256 m8 = _mm256_set1_ps(x[0]);
  for (; i + 8 <= n; i += 8) m8 = _mm256_max_ps(m8, _mm256_loadu_ps(x + i));
  __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(m8), _mm256_extractf128_ps(m8, 1));
  m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
  float max = _mm_cvtss_f32(_mm_max_ss(m4, _mm_movehdup_ps(m4)));
  for (; i < n; ++i) max = x[i] > max ? x[i] : max;
  const __m256 mv = _mm256_set1_ps(max);
  __m256 s8 = _mm256_setzero_ps();
  for (i = 0; i + 8 <= n; i += 8) {
    __m256 e = exp_nonpositive(_mm256_sub_ps(_mm256_loadu_ps(x + i), mv));
    _mm256_storeu_ps(x + i, e);
    s8 = _mm256_add_ps(s8, e);
  }
  float sum = hsum(s8);
  if (i < n) {  // the tail through the same exp, eight lanes of which n - i are kept
    alignas(32) float t[8] = {max, max, max, max, max, max, max, max};
    std::copy(x + i, x + n, t);
    _mm256_store_ps(t, exp_nonpositive(_mm256_sub_ps(_mm256_load_ps(t), mv)));
    for (std::int64_t j = 0; i + j < n; ++j) {
      x[i + j] = t[j];
      sum += t[j];
    }
  }
  const __m256 inv = _mm256_set1_ps(1.0f / sum);
  for (i = 0; i + 8 <= n; i += 8)
    _mm256_storeu_ps(x + i, _mm256_mul_ps(_mm256_loadu_ps(x + i), inv));
  for (; i < n; ++i) x[i] *= 1.0f / sum;
}

void accumulate_avx2(const float* a, std::size_t a_stride, int heads, const float* const* v, int n,
                     float* out, std::int64_t hd) {
  for (int h = 0; h < heads; ++h) accumulate_head(a + h * a_stride, v, n, out + h * hd, hd);
}

const AttentionKernels kAvx2{scores_avx2, accumulate_avx2, softmax_avx2};

}  // namespace

const AttentionKernels* avx2_attention_kernels() { return avx2_kernels() ? &kAvx2 : nullptr; }

}  // namespace tok::model

#else
namespace tok::model {
const AttentionKernels* avx2_attention_kernels() { return nullptr; }
}  // namespace tok::model
#endif
