// Q4_K on Q8_K activations with AVX-512 VNNI, row by row (decode): the
// AVX-512 set's q4_k_q8k (issue #21: the AVX2 kernel, two maddubs, two madd
// and two scalar scale broadcasts per 64 values, held the 100M model's Q4_K
// decode at about 0.8x llama.cpp's rate on an AVX-512 machine; profiled,
// 71% of decode was in it).
//
// Per 64 values (sub-blocks 2k and 2k + 1, whose nibbles share 32 bytes):
// one 256-bit load, a shift and an insert put the low nibbles (sub-block 2k)
// and the high ones (2k + 1) in one register in the activations' order, and
// one dpbusd (unsigned nibbles x signed q8) leaves sub-block 2k in int32
// lanes 0-7 and 2k + 1 in 8-15. Each lane sums 4 products, at most
// 4 * 15 * 128 in magnitude, so two such vectors pack to int16 without
// saturating and one vpdpwssd multiplies them by their sub-blocks' 6-bit
// scales (spread to match by one vpermw) and adds them up in int32. The
// mins: d_min dx sum_j m_j (x sums of sub-block j), from the block's bsums
// by one madd. Integer sums are exact; as the AVX2 kernel, one float
// multiply-add per super-block.
//
// Compiled with -mavx512f -mavx512bw -mavx512vl -mavx512vnni
// (src/CMakeLists.txt); only the AVX-512 kernel set points to it.
#include "model/kernels.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include "model/avx512_k_blocks.hpp"
#include "model/avx512_prelude.hpp"

#include <algorithm>

namespace tok::model {
namespace {

// The 8 scales and 8 mins of a Q4_K super-block as 16 int16: scales in
// words 0-7, mins in 8-15.
inline __m256i scales_mins(const std::uint8_t* packed) {
  return _mm256_cvtepu8_epi16(k4_scales_mins(packed));
}

// Sub-block k + 2 p's nibbles (p = 0: low, 1: high of the 32 bytes at
// qs + 32 k) as bytes 32 p .. 32 p + 31.
inline __m512i nibbles(const std::uint8_t* q) {
  __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q));
  __m512i both = _mm512_inserti64x4(_mm512_castsi256_si512(v), _mm256_srli_epi16(v, 4), 1);
  return _mm512_and_si512(both, _mm512_set1_epi8(0x0F));
}

// dp[k] holds sub-block 2k in 128-bit chunks 0-1 and 2k + 1 in chunks 2-3,
// so word w of packs(dp[0], dp[1]) (chunk c = w / 8, i = w % 8: words 0-3
// from dp[0], 4-7 from dp[1]) belongs to sub-block (c >= 2) + 2 (i >= 4);
// of packs(dp[2], dp[3]), to 4 more.
// (Both index tables are constexpr: a constructor run at startup would be
// compiled with this file's AVX-512 flags; tests/cli/isa_objects.sh.)
struct ScaleIndex {
  alignas(64) std::uint16_t lo[32], hi[32];
  constexpr ScaleIndex() : lo{}, hi{} {
    for (int w = 0; w < 32; ++w) {
      int sb = (w / 8 >= 2 ? 1 : 0) + (w % 8 >= 4 ? 2 : 0);
      lo[w] = static_cast<std::uint16_t>(sb);
      hi[w] = static_cast<std::uint16_t>(4 + sb);
    }
  }
};
constexpr ScaleIndex kIndex;

// acc plus d dx (the scaled int32 sums isum) less the mins term
// dmin dx sum_j m_j (x sums of sub-block j, from the block's bsums).
inline __m512 finish(const ggml::BlockQ4_K& wb, const ggml::BlockQ8_K& xb, __m512i sm, __m512i isum,
                     __m512 acc) {
  // Mins doubled (m0 m0 m1 m1 ...) to meet bsums' two halves of each sub-block.
  const __m256i idx_mins =
      _mm256_setr_epi16(8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15);
  acc = _mm512_fmadd_ps(_mm512_set1_ps(_cvtsh_ss(wb.d) * xb.d), _mm512_cvtepi32_ps(isum), acc);
  __m256i m = _mm256_madd_epi16(_mm256_permutexvar_epi16(idx_mins, _mm512_castsi512_si256(sm)),
                                _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xb.bsums)));
  return _mm512_fnmadd_ps(_mm512_set1_ps(_cvtsh_ss(wb.dmin) * xb.d),
                          _mm512_cvtepi32_ps(_mm512_zextsi256_si512(m)), acc);
}

// One super-block of one row added to acc (16 lanes to be summed).
inline __m512 super_block(const ggml::BlockQ4_K& wb, const ggml::BlockQ8_K& xb, __m512 acc) {
  const __m512i idx_lo = _mm512_load_si512(kIndex.lo), idx_hi = _mm512_load_si512(kIndex.hi);
  __m512i dp[4];
#pragma GCC unroll 4
  for (int k = 0; k < 4; ++k) {
    dp[k] = _mm512_dpbusd_epi32(_mm512_setzero_si512(), nibbles(wb.qs + 32 * k),
                                _mm512_loadu_si512(xb.qs + 64 * k));
  }
  const __m512i sm = _mm512_castsi256_si512(scales_mins(wb.scales));
  __m512i isum = _mm512_dpwssd_epi32(_mm512_setzero_si512(), _mm512_packs_epi32(dp[0], dp[1]),
                                     _mm512_permutexvar_epi16(idx_lo, sm));
  isum = _mm512_dpwssd_epi32(isum, _mm512_packs_epi32(dp[2], dp[3]),
                             _mm512_permutexvar_epi16(idx_hi, sm));
  return finish(wb, xb, sm, isum, acc);
}

inline __m512 row_acc(const ggml::BlockQ4_K* w, const ggml::BlockQ8_K* x, std::int64_t nsb) {
  __m512 acc = _mm512_setzero_ps();
  for (std::int64_t b = 0; b < nsb; ++b) acc = super_block(w[b], x[b], acc);
  return acc;
}

// Decode's activations, prepared once per product: a super-block's values
// in the order of its weights' 64-byte halves. Half h holds sub-blocks
// 4h (low nibbles of bytes 0-31), 4h + 1 (their high nibbles), 4h + 2 and
// 4h + 3 (bytes 32-63), so one 512-bit load and two masks give the weights
// of two dpbusd without the 256-bit shuffles of `nibbles`.
struct alignas(64) PreparedQ8K {
  __m512i lo[2], hi[2];  // half h: [sub-block 4h | 4h + 2], [4h + 1 | 4h + 3]
};

inline __m512i join(const std::int8_t* a, const std::int8_t* b) {
  return _mm512_inserti64x4(
      _mm512_castsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a))),
      _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b)), 1);
}

void prepare(const ggml::BlockQ8_K* x, std::int64_t nsb, PreparedQ8K* out) {
  for (std::int64_t b = 0; b < nsb; ++b) {
    for (int h = 0; h < 2; ++h) {
      const std::int8_t* q = x[b].qs + 128 * h;
      out[b].lo[h] = join(q, q + 64);
      out[b].hi[h] = join(q + 32, q + 96);
    }
  }
}

// Word w of packs(dp lo[h], dp hi[h]) (chunk c = w / 8, i = w % 8) belongs
// to sub-block 4h + 2 (c >= 2) + (i >= 4).
struct PreparedIndex {
  alignas(64) std::uint16_t half[2][32];
  constexpr PreparedIndex() : half{} {
    for (int h = 0; h < 2; ++h) {
      for (int w = 0; w < 32; ++w)
        half[h][w] =
            static_cast<std::uint16_t>(4 * h + (w / 8 >= 2 ? 2 : 0) + (w % 8 >= 4 ? 1 : 0));
    }
  }
};
constexpr PreparedIndex kPreparedIndex;

inline __m512 super_block(const ggml::BlockQ4_K& wb, const ggml::BlockQ8_K& xb,
                          const PreparedQ8K& xp, __m512 acc) {
  const __m512i low4 = _mm512_set1_epi8(0x0F);
  const __m512i sm = _mm512_castsi256_si512(scales_mins(wb.scales));
  __m512i isum = _mm512_setzero_si512();
#pragma GCC unroll 2
  for (int h = 0; h < 2; ++h) {
    __m512i q = _mm512_loadu_si512(wb.qs + 64 * h);
    __m512i lo = _mm512_dpbusd_epi32(_mm512_setzero_si512(), _mm512_and_si512(q, low4), xp.lo[h]);
    __m512i hi = _mm512_dpbusd_epi32(_mm512_setzero_si512(),
                                     _mm512_and_si512(_mm512_srli_epi16(q, 4), low4), xp.hi[h]);
    isum = _mm512_dpwssd_epi32(
        isum, _mm512_packs_epi32(lo, hi),
        _mm512_permutexvar_epi16(_mm512_load_si512(kPreparedIndex.half[h]), sm));
  }
  return finish(wb, xb, sm, isum, acc);
}

inline __m512 row_acc(const ggml::BlockQ4_K* w, const ggml::BlockQ8_K* x, const PreparedQ8K* xp,
                      std::int64_t nsb) {
  __m512 acc = _mm512_setzero_ps();
  for (std::int64_t b = 0; b < nsb; ++b) acc = super_block(w[b], x[b], xp[b], acc);
  return acc;
}

// Four rows' accumulators summed: row m in lane m (a transposing sum, one
// reduction for four rows instead of four).
inline __m128 sum_rows(__m512 a, __m512 b, __m512 c, __m512 d) {
  __m512 ab =
      _mm512_add_ps(_mm512_unpacklo_ps(a, b), _mm512_unpackhi_ps(a, b));  // a0+a2 b0+b2 a1+a3 b1+b3
  __m512 cd = _mm512_add_ps(_mm512_unpacklo_ps(c, d), _mm512_unpackhi_ps(c, d));
  __m512 s = _mm512_add_ps(
      _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(ab), _mm512_castps_pd(cd))),
      _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(ab), _mm512_castps_pd(cd))));
  __m256 h = _mm256_add_ps(_mm512_castps512_ps256(s),
                           _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(s), 1)));
  return _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
}

}  // namespace

float dot_q4_k_q8k_avx512(const ggml::BlockQ4_K* w, const ggml::BlockQ8_K* x, std::int64_t n) {
  return _mm512_reduce_add_ps(row_acc(w, x, n / ggml::kQKK));
}

// y[r] for r0 <= r < r1: one token, activations prepared once per chunk of
// columns (on the stack; longer rows add up their chunks in y), rows four
// at a time (one reduction per four rows, no per-row call through dot_row).
void q4_k_decode_avx512(const TensorView& w, std::int64_t r0, std::int64_t r1,
                        const ggml::BlockQ8_K* x, float* y) {
  constexpr std::int64_t kChunk = 32;  // super-blocks: 8192 columns, 8 KiB prepared
  PreparedQ8K xp[kChunk];
  const std::int64_t nsb = w.cols / ggml::kQKK;
  for (std::int64_t b0 = 0; b0 < nsb; b0 += kChunk) {
    const std::int64_t nb = std::min(kChunk, nsb - b0);
    prepare(x + b0, nb, xp);
    auto row = [&](std::int64_t r) {
      return row_acc(reinterpret_cast<const ggml::BlockQ4_K*>(w.row(r)) + b0, x + b0, xp, nb);
    };
    std::int64_t r = r0;
    for (; r + 4 <= r1; r += 4) {
      // The four rows a super-block at a time: longer loop bodies than four
      // short row loops (rows of 768 columns are 3 super-blocks).
      const auto* w0 = reinterpret_cast<const ggml::BlockQ4_K*>(w.row(r)) + b0;
      const std::int64_t stride = nsb;  // blocks from one row to the next
      __m512 acc[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(),
                       _mm512_setzero_ps()};
      for (std::int64_t b = 0; b < nb; ++b) {
#pragma GCC unroll 4
        for (int m = 0; m < 4; ++m)
          acc[m] = super_block(w0[m * stride + b], x[b0 + b], xp[b], acc[m]);
      }
      __m128 v = sum_rows(acc[0], acc[1], acc[2], acc[3]);
      _mm_storeu_ps(y + r, b0 == 0 ? v : _mm_add_ps(_mm_loadu_ps(y + r), v));
    }
    for (; r < r1; ++r) {
      float v = _mm512_reduce_add_ps(row(r));
      y[r] = b0 == 0 ? v : y[r] + v;
    }
  }
}

}  // namespace tok::model

#endif
