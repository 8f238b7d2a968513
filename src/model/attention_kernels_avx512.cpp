// AVX-512 attention kernels (attention_kernels.hpp), bit for bit the AVX2
// ones: every score and every output value is the same chain of
// multiply-adds, only more of them run per instruction.
//
// Scores: the AVX2 kernel keeps one 8-lane sum per key over the head (lane l
// adds q[i + l] * k[i + l] for i = 0, 8, ...) and reduces eight keys' sums
// with reduce8. Here a 512-bit register holds two keys' 8-lane sums (the
// key pair loaded as two halves, the query repeated in both), so one
// multiply-add does two keys, and up to four query heads share each pair of
// keys loaded; the halves then go through the same reduce8.
//
// Values: out[i] += a[j] * v[j][i] in the order of j, one lane per i, so
// 16 lanes per register give the same sums as 8; up to four heads share each
// value row loaded.
//
// Compiled with -mavx2 -mfma -mf16c -mavx512f -mavx512vl -mavx512dq
// (src/CMakeLists.txt); chosen only after avx512_attention_kernels() has
// checked the CPU.
#include "model/attention_kernels.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include "model/avx512_prelude.hpp"

#include "core/cpu_features.hpp"
#include "model/attention_reduce.hpp"

namespace tok::model {
namespace {

inline const float* key_at(const std::uint8_t* keys, std::size_t stride, int j) {
  return reinterpret_cast<const float*>(keys + static_cast<std::size_t>(j) * stride);
}

// Keys k[0..7] against G query heads (q, hd apart) from head g0: the eight
// scores of each head at s + (g0 + gg) * s_stride.
template <int G>
inline void score8(const float* q, int g0, std::int64_t hd, const float* const* k, float scale,
                   float* s, std::size_t s_stride) {
  __m512 acc[G][4];
  TOK_UNROLL
  for (int gg = 0; gg < G; ++gg) {
    TOK_UNROLL
    for (int m = 0; m < 4; ++m) acc[gg][m] = _mm512_setzero_ps();
  }
  for (std::int64_t i = 0; i < hd; i += 8) {
    __m512 kp[4];
    TOK_UNROLL
    for (int m = 0; m < 4; ++m) {
      kp[m] = _mm512_insertf32x8(_mm512_castps256_ps512(_mm256_loadu_ps(k[2 * m] + i)),
                                 _mm256_loadu_ps(k[2 * m + 1] + i), 1);
    }
    TOK_UNROLL
    for (int gg = 0; gg < G; ++gg) {
      const __m512 qq = _mm512_broadcast_f32x8(_mm256_loadu_ps(q + (g0 + gg) * hd + i));
      TOK_UNROLL
      for (int m = 0; m < 4; ++m) acc[gg][m] = _mm512_fmadd_ps(qq, kp[m], acc[gg][m]);
    }
  }
  const __m256 vscale = _mm256_set1_ps(scale);
  TOK_UNROLL
  for (int gg = 0; gg < G; ++gg) {
    __m256 v[8];
    TOK_UNROLL
    for (int m = 0; m < 4; ++m) {
      v[2 * m] = _mm512_castps512_ps256(acc[gg][m]);
      v[2 * m + 1] = _mm512_extractf32x8_ps(acc[gg][m], 1);
    }
    _mm256_storeu_ps(s + static_cast<std::size_t>(g0 + gg) * s_stride,
                     _mm256_mul_ps(reduce8(v), vscale));
  }
}

void scores_avx512(const float* q, int group, std::int64_t hd, const std::uint8_t* keys,
                   std::size_t key_stride, int n, float scale, float* s, std::size_t s_stride) {
  const AttentionKernels& avx2 = *avx2_attention_kernels();
  if (hd % 8 != 0) return avx2.scores(q, group, hd, keys, key_stride, n, scale, s, s_stride);
  int j = 0;
  for (; j + 8 <= n; j += 8) {
    const float* k[8];
    for (int u = 0; u < 8; ++u) k[u] = key_at(keys, key_stride, j + u);
    int g = 0;
    for (; g + 4 <= group; g += 4) score8<4>(q, g, hd, k, scale, s + j, s_stride);
    switch (group - g) {  // as many heads per key load as there are (3: GQA's 12 of 4)
      case 3: score8<3>(q, g, hd, k, scale, s + j, s_stride); break;
      case 2: score8<2>(q, g, hd, k, scale, s + j, s_stride); break;
      case 1: score8<1>(q, g, hd, k, scale, s + j, s_stride); break;
      default: break;
    }
  }
  // The last keys one at a time, as the AVX2 kernel takes them.
  if (j < n)
    avx2.scores(q, group, hd, keys + static_cast<std::size_t>(j) * key_stride, key_stride, n - j,
                scale, s + j, s_stride);
}

// H heads (a rows a_stride apart, outputs hd apart) times U registers of
// outputs from i0.
template <int H, int U>
inline void accumulate_tile(const float* a, std::size_t a_stride, const float* const* v, int n,
                            float* out, std::int64_t hd, std::int64_t i0) {
  __m512 acc[H][U];
  TOK_UNROLL
  for (int h = 0; h < H; ++h) {
    TOK_UNROLL
    for (int u = 0; u < U; ++u) acc[h][u] = _mm512_loadu_ps(out + h * hd + i0 + 16 * u);
  }
  for (int j = 0; j < n; ++j) {
    __m512 vj[U];
    TOK_UNROLL
    for (int u = 0; u < U; ++u) vj[u] = _mm512_loadu_ps(v[j] + i0 + 16 * u);
    TOK_UNROLL
    for (int h = 0; h < H; ++h) {
      const __m512 aj = _mm512_set1_ps(a[h * a_stride + j]);
      TOK_UNROLL
      for (int u = 0; u < U; ++u) acc[h][u] = _mm512_fmadd_ps(aj, vj[u], acc[h][u]);
    }
  }
  TOK_UNROLL
  for (int h = 0; h < H; ++h) {
    TOK_UNROLL
    for (int u = 0; u < U; ++u) _mm512_storeu_ps(out + h * hd + i0 + 16 * u, acc[h][u]);
  }
}

// Heads [0, H) over every full 64 or 16 outputs of the head.
template <int H>
inline void accumulate_heads(const float* a, std::size_t a_stride, const float* const* v, int n,
                             float* out, std::int64_t hd) {
  std::int64_t i0 = 0;
  for (; i0 + 64 <= hd; i0 += 64) accumulate_tile<H, 4>(a, a_stride, v, n, out, hd, i0);
  for (; i0 + 16 <= hd; i0 += 16) accumulate_tile<H, 1>(a, a_stride, v, n, out, hd, i0);
}

void accumulate_avx512(const float* a, std::size_t a_stride, int heads, const float* const* v,
                       int n, float* out, std::int64_t hd) {
  if (hd % 16 != 0) return avx2_attention_kernels()->accumulate(a, a_stride, heads, v, n, out, hd);
  int h = 0;
  for (; h + 4 <= heads; h += 4)
    accumulate_heads<4>(a + h * a_stride, a_stride, v, n, out + h * hd, hd);
  const float* ah = a + h * a_stride;
  switch (heads - h) {
    case 3: accumulate_heads<3>(ah, a_stride, v, n, out + h * hd, hd); break;
    case 2: accumulate_heads<2>(ah, a_stride, v, n, out + h * hd, hd); break;
    case 1: accumulate_heads<1>(ah, a_stride, v, n, out + h * hd, hd); break;
    default: break;
  }
}

void softmax_avx512(float* x, std::int64_t n) { avx2_attention_kernels()->softmax(x, n); }

const AttentionKernels kAvx512{scores_avx512, accumulate_avx512, softmax_avx512};

}  // namespace

const AttentionKernels* avx512_attention_kernels() {
  const CpuFeatures& cpu = cpu_features();
  bool ok = avx2_attention_kernels() != nullptr && cpu.avx512f && cpu.avx512vl && cpu.avx512dq;
  return ok ? &kAvx512 : nullptr;
}

}  // namespace tok::model

#else
namespace tok::model {
const AttentionKernels* avx512_attention_kernels() { return nullptr; }
}  // namespace tok::model
#endif
