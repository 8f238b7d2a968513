// AVX-512 VNNI products of Q4_0x4 weights (model/repack.hpp: Q4_0 rows in
// groups of four, 128 columns of the four rows in one 288-byte unit) with
// Q8_0 activations, one token (decode) or several (prefill).
//
// Per unit and row: one 64-byte load holds the row's 4 blocks' nibbles in
// the order of the prepared activations (lo: elements 0-15 of each block,
// hi: 16-31), so two masks, a shift and two dpbusd give the row's int32
// partial sums, block k in lanes 4k..4k+3 (starting from the offset
// correction -8 * sum(x): nibbles q stand for q - 8, as in
// kernels_avx512.cpp). A transposing sum of the four rows' vectors
// (sum4x4) leaves block k of row m in lane 4k + m, the order of the unit's
// 16 scales, so the four rows share one conversion, one scale multiply and
// one float multiply-add per unit, and one activation load serves four
// rows. The VBMI decode of rows in the file's layout spends two loads, a
// byte permute and a scale permute per row and unit, and the float step per
// row.
//
// Integer sums are exact; results differ from the other kernels' only in
// the order of the per-block float multiply-adds.
//
// Compiled with -mavx512f -mavx512bw -mavx512vl -mavx512vnni
// (src/CMakeLists.txt); called only from the AVX-512 kernel set.
#include "model/isa_vector.hpp"
#include "model/kernels.hpp"
#include "model/kernels_avx512_vbmi.hpp"
#include "model/repack.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include "model/avx512_prelude.hpp"

#include "model/avx512_q8_0_quad.hpp"

#include <algorithm>

namespace tok::model {
namespace {

static_assert(kQ4x4UnitBytes == 288 && sizeof(ggml::BlockQ8_0) == 34);

// The activations of one unit's 4 blocks in the weights' nibble order, the
// offset correction each row's sum starts from, and the scales spread to
// match sum4x4's lanes.
struct alignas(64) ActUnit {
  __m512i lo, hi;  // x[k].qs[0..15], x[k].qs[16..31] at bytes 16k..16k+15
  __m512i corr;    // -8 * (the bytes of lo and hi that meet lanes 4k..4k+3)
  __m512 d;        // x[k].d in lanes 4k..4k+3
};

void prepare(const ggml::BlockQ8_0* x, std::int64_t units, ActUnit* out) {
  const __m512i spread = _mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3);
  for (std::int64_t i = 0; i < units; ++i) {
    const Q8_0Quad q = load_q8_0_quad(x + kQ4x4UnitBlocks * i);
    out[i] = {q.lo, q.hi, q.corr, _mm512_permutexvar_ps(spread, _mm512_castps128_ps512(q.d))};
  }
}

// a..d: rows 0..3, block k's partial sums in lanes 4k..4k+3. Returns block
// k of row m in lane 4k + m (within each 128-bit lane, a 4x4 transpose
// folded into the adds).
inline __m512i sum4x4(__m512i a, __m512i b, __m512i c, __m512i d) {
  __m512i ab = _mm512_add_epi32(_mm512_unpacklo_epi32(a, b), _mm512_unpackhi_epi32(a, b));
  __m512i cd = _mm512_add_epi32(_mm512_unpacklo_epi32(c, d), _mm512_unpackhi_epi32(c, d));
  return _mm512_add_epi32(_mm512_unpacklo_epi64(ab, cd), _mm512_unpackhi_epi64(ab, cd));
}

// Lanes 4k + m summed over k: row m in lane m.
inline __m128 rows_of(__m512 acc) {
  __m256 h = _mm256_add_ps(_mm512_castps512_ps256(acc),
                           _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(acc), 1)));
  return _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
}

// One unit's four rows: nibbles split into low (elements 0-15) and high.
struct UnitWeights {
  __m512i lo[kQ4x4Rows], hi[kQ4x4Rows];
  __m512 d;  // the 16 scales, lane 4k + m
};

inline UnitWeights load_unit(const std::uint8_t* p) {
  const __m512i low4 = _mm512_set1_epi8(0x0F);
  UnitWeights u;
  TOK_UNROLL
  for (int m = 0; m < kQ4x4Rows; ++m) {
    __m512i q = _mm512_loadu_si512(p + 64 * m);
    u.lo[m] = _mm512_and_si512(q, low4);
    u.hi[m] = _mm512_and_si512(_mm512_srli_epi16(q, 4), low4);
  }
  u.d = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 256)));
  return u;
}

// The unit's integer block sums of four rows times one token, lane 4k + m.
inline __m512 unit_sums(const UnitWeights& w, const ActUnit& x) {
  __m512i s[kQ4x4Rows];
  TOK_UNROLL
  for (int m = 0; m < kQ4x4Rows; ++m) {
    s[m] = _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(x.corr, w.lo[m], x.lo), w.hi[m], x.hi);
  }
  return _mm512_cvtepi32_ps(sum4x4(s[0], s[1], s[2], s[3]));
}

// One group's units [0, nu) times one token; prefetches kDecodePrefetchBytes
// ahead into L1 (decode reads the matrix once per token, from memory; the
// groups follow each other, so this is one stream).
// Two accumulators, unrolled by hand: indexed as acc[u & 1] they lived on
// the stack (a store and a reload per unit).
__m128 group_decode(const std::uint8_t* g, const ActUnit* x, std::int64_t nu) {
  auto unit = [&](std::int64_t u, __m512 acc) {
    const std::uint8_t* p = g + static_cast<std::size_t>(u) * kQ4x4UnitBytes;
    TOK_UNROLL
    for (int o = 0; o < 288; o += 64)
      _mm_prefetch(reinterpret_cast<const char*>(p) + kDecodePrefetchBytes + o, _MM_HINT_T0);
    UnitWeights w = load_unit(p);
    return _mm512_fmadd_ps(unit_sums(w, x[u]), _mm512_mul_ps(w.d, x[u].d), acc);
  };
  __m512 acc0 = _mm512_setzero_ps(), acc1 = _mm512_setzero_ps();
  std::int64_t u = 0;
  for (; u + 2 <= nu; u += 2) {
    acc0 = unit(u, acc0);
    acc1 = unit(u + 1, acc1);
  }
  if (u < nu) acc0 = unit(u, acc0);
  return rows_of(_mm512_add_ps(acc0, acc1));
}

// RN tokens (prepared units `units` apart) times one group: y[(t + j) * ldy + m].
template <int RN>
void group_tile(const std::uint8_t* g, const ActUnit* x, std::int64_t units, float* y,
                std::int64_t ldy) {
  __m512 acc[RN];
  TOK_UNROLL
  for (int j = 0; j < RN; ++j) acc[j] = _mm512_setzero_ps();
  for (std::int64_t u = 0; u < units; ++u, g += kQ4x4UnitBytes) {
    UnitWeights w = load_unit(g);
    TOK_UNROLL
    for (int j = 0; j < RN; ++j) {
      const ActUnit& xu = x[j * units + u];
      acc[j] = _mm512_fmadd_ps(unit_sums(w, xu), _mm512_mul_ps(w.d, xu.d), acc[j]);
    }
  }
  TOK_UNROLL
  for (int j = 0; j < RN; ++j) _mm_storeu_ps(y + j * ldy, rows_of(acc[j]));
}

std::size_t group_bytes(const TensorView& w) { return kQ4x4Rows * w.row_bytes(); }

// Groups [g0, g1) times one token. Activations prepared once per chunk of
// columns, on the stack; longer rows add up their chunks in y.
void decode_groups(const TensorView& w, std::int64_t g0, std::int64_t g1, const ggml::BlockQ8_0* x,
                   float* y) {
  constexpr std::int64_t kChunk = 64;  // units: 8192 columns, 16 KiB of prepared activations
  ActUnit xu[kChunk];
  const std::int64_t units = w.cols / (ggml::kQK * kQ4x4UnitBlocks);
  const auto* base = static_cast<const std::uint8_t*>(w.data);
  for (std::int64_t u0 = 0; u0 < units; u0 += kChunk) {
    const std::int64_t nu = std::min(kChunk, units - u0);
    prepare(x + kQ4x4UnitBlocks * u0, nu, xu);
    for (std::int64_t g = g0; g < g1; ++g) {
      const std::uint8_t* p =
          base + static_cast<std::size_t>(g) * group_bytes(w) + u0 * kQ4x4UnitBytes;
      __m128 v = group_decode(p, xu, nu);
      float* out = y + g * kQ4x4Rows;
      _mm_storeu_ps(out, u0 == 0 ? v : _mm_add_ps(_mm_loadu_ps(out), v));
    }
  }
}

// Groups [g0, g1) times a.n tokens, in blocks of kTokens tokens whose
// prepared units (256 bytes per 128 columns) stay in L2, tiles of 8 tokens
// (5% more prefill than tiles of 4 on the 100M model, by CPU time).
void prefill_groups(const TensorView& w, std::int64_t g0, std::int64_t g1, const ActBatch& a,
                    float* y, std::int64_t ldy) {
  constexpr std::int64_t kTokens = 32, kTile = 8;
  const std::int64_t units = w.cols / (ggml::kQK * kQ4x4UnitBlocks);
  const auto* base = static_cast<const std::uint8_t*>(w.data);
  IsaVector<ActUnit> xu(
      static_cast<std::size_t>(std::min(kTokens, a.n) * units));  // (tokens, units)
  for (std::int64_t t0 = 0; t0 < a.n; t0 += kTokens) {
    const std::int64_t t1 = std::min(a.n, t0 + kTokens);
    for (std::int64_t t = t0; t < t1; ++t)
      prepare(a.xq + t * a.xq_stride, units, xu.data() + (t - t0) * units);
    for (std::int64_t g = g0; g < g1; ++g) {
      const std::uint8_t* p = base + static_cast<std::size_t>(g) * group_bytes(w);
      float* out = y + g * kQ4x4Rows;
      std::int64_t t = t0;
      for (; t + kTile <= t1; t += kTile)
        group_tile<kTile>(p, xu.data() + (t - t0) * units, units, out + t * ldy, ldy);
      for (; t < t1; ++t) group_tile<1>(p, xu.data() + (t - t0) * units, units, out + t * ldy, ldy);
    }
  }
}

}  // namespace

// Rows [r0, r1) of a Q4_0x4 matrix times a.n tokens: whole groups here,
// rows of groups the range cuts and the plain rows after the last group by
// dot_row.
void gemm_q4_0x4_avx512(const DotKernels& k, const TensorView& w, std::int64_t r0, std::int64_t r1,
                        const ActBatch& a, float* y, std::int64_t ldy) {
  const std::int64_t grouped = q4_0x4_grouped_rows(w);
  const std::int64_t g0 = (r0 + kQ4x4Rows - 1) / kQ4x4Rows,
                     g1 = std::max(g0, std::min(r1, grouped) / kQ4x4Rows);
  auto by_rows = [&](std::int64_t from, std::int64_t to) {
    for (std::int64_t r = from; r < to; ++r) {
      for (std::int64_t t = 0; t < a.n; ++t) {
        y[t * ldy + r] = dot_row(k, w, r, Activation{a.x + t * a.x_stride, a.xq + t * a.xq_stride});
      }
    }
  };
  if (g0 >= g1) return by_rows(r0, r1);
  by_rows(r0, g0 * kQ4x4Rows);
  if (a.n == 1) {
    decode_groups(w, g0, g1, a.xq, y);
  } else {
    prefill_groups(w, g0, g1, a, y, ldy);
  }
  by_rows(g1 * kQ4x4Rows, r1);
}

}  // namespace tok::model

#else
namespace tok::model {
void gemm_q4_0x4_avx512(const DotKernels&, const TensorView&, std::int64_t, std::int64_t,
                        const ActBatch&, float*, std::int64_t) {}
}  // namespace tok::model
#endif
