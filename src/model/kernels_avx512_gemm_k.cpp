// Q2_K, Q3_K, Q4_K and Q6_K weights times several tokens (prefill) in integers, AVX-512
// VNNI: the activations come as q8_K (act_q8_k.hpp, made once per batch),
// and each block of weight rows is decoded once per batch to int16 values
// that already carry their sub-block scale (Q4_K: q * sc, at most 15 * 63;
// Q6_K: (q - 32) * sc, at most 32 * 128 in magnitude; Q3_K: q * sc with q
// in -4..3 and sc in -32..31, at most 128; Q2_K: q * sc, at most 3 * 15,
// kept as unsigned bytes), beside the fp16 super-block scales as floats.
// Then a tile of RM rows x RN tokens is one vpdpwssd per 32 values per row
// and token (32 products summed in pairs into int32, exact: a super-block's
// sum stays below 2^24 per lane; Q2_K: one vpdpbusd per 64 values, with the
// activations' bytes), and per super-block one convert and one multiply-add
// by d_w * d_x. Q4_K's min term
//   - sum over sub-blocks j of (dmin * m_j) * (d_x * sum of x over j)
// is a float dot product over the sub-blocks (1/32 of the values), from the
// sums act_q8_k keeps; Q2_K's is the same over its 16-value sub-blocks (the
// sums of 16). The integer sums are ggml's (ggml_vec_dot_q4_K_q8_K,
// q6_K_q8_K, q3_K_q8_K, q2_K_q8_K); only the order of the float steps
// differs.
//
// Why int16 and vpdpwssd rather than the bytes and vpdpbusd: the sub-block
// scales differ every 32 (Q4_K) or 16 (Q6_K) values, so byte dots would
// need a scaling step (multiply or maddubs + madd) per register; with the
// scales in the weights there is none, and vpdpwssd's 32 products per
// instruction are twice a 512-bit float multiply-add's 16.
//
// Rows are decoded block_rows(cols) at a time (Q2_K and Q3_K 64 values per
// step, Q4_K and Q6_K by scalar loops) and the tokens taken kBlockTokens at
// a time, so that both stay in L2 while the tiles sweep them.
#include "ggml/half.hpp"
#include "model/act_q8_k.hpp"
#include "model/isa_vector.hpp"
#include "model/kernels.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include "model/avx512_k_blocks.hpp"
#include "model/avx512_prelude.hpp"

#include <algorithm>
#include <cstring>

namespace tok::model {
namespace {

constexpr std::int64_t kBlockTokens = 48;
// Rows decoded per block: as many as keep the block's int16 values within
// 256 KiB (a quarter to half of an L2), 16 to 128 of them. Every block of
// rows sweeps all the batch's activations again (256 tokens: 0.4-1 MiB for
// 768-2,048 columns, more than an L2), so fewer, larger blocks read them
// fewer times: 64-128 rows instead of 32 ran a 512-token Q4_K prefill of
// the 100M model 1.06-1.09x faster (BENCHMARKS.md).
std::int64_t block_rows(std::int64_t cols) {
  constexpr std::int64_t kBudget = 256 << 10;
  return std::clamp<std::int64_t>(kBudget / (cols * 2) / 4 * 4, 16, 128);
}
constexpr int kRm = 4, kRn = 3;  // 12 int32 + 12 float accumulators, 4 loads: 28 of 32 registers
constexpr std::int64_t kSubs =
    ggml::kQKK / ggml::kQK;  // Q4_K sub-blocks (and act sums) per super-block

// Weight rows decoded for the integer tiles.
struct IntRows {
  std::int64_t cols = 0;
  IsaVector<std::int16_t> q;  // (block_rows(cols), cols) quant times sub-block scale
  IsaVector<std::uint8_t> b;  // (block_rows(cols), cols) Q2_K: the same as bytes (at most 45)
  IsaVector<float> d;         // (block_rows(cols), cols / 256) super-block scales
  IsaVector<float>
      mins;  // (block_rows(cols), cols / 16) Q4_K (cols / 32) and Q2_K: dmin * m of each sub-block
};

// Values per sub-block with a min term (the mins' and the activation sums'
// stride), 0 for none.
int min_span(DType t) { return t == DType::kQ4_K ? ggml::kQK : t == DType::kQ2_K ? 16 : 0; }

void decode_q4_k(const ggml::BlockQ4_K* b, std::int64_t nb, std::int16_t* q, float* d,
                 float* mins) {
  for (std::int64_t s = 0; s < nb; ++s, q += ggml::kQKK) {
    d[s] = ggml::fp16_to_f32(b[s].d);
    const float dmin = ggml::fp16_to_f32(b[s].dmin);
    for (int j = 0; j < 4; ++j) {
      std::uint8_t sc0, m0, sc1, m1;
      ggml::scale_min_k4(2 * j, b[s].scales, sc0, m0);
      ggml::scale_min_k4(2 * j + 1, b[s].scales, sc1, m1);
      const std::uint8_t* qs = b[s].qs + 32 * j;
      for (int l = 0; l < 32; ++l) {
        q[64 * j + l] = static_cast<std::int16_t>((qs[l] & 0xF) * sc0);
        q[64 * j + 32 + l] = static_cast<std::int16_t>((qs[l] >> 4) * sc1);
      }
      mins[kSubs * s + 2 * j] = dmin * m0;
      mins[kSubs * s + 2 * j + 1] = dmin * m1;
    }
  }
}

void decode_q6_k(const ggml::BlockQ6_K* b, std::int64_t nb, std::int16_t* q, float* d) {
  for (std::int64_t s = 0; s < nb; ++s, q += ggml::kQKK) {
    d[s] = ggml::fp16_to_f32(b[s].d);
    for (int h = 0; h < 2; ++h) {  // ggml's dequantize_row_q6_K, 128 values at a time
      const std::uint8_t* ql = b[s].ql + 64 * h;
      const std::uint8_t* qh = b[s].qh + 32 * h;
      const std::int8_t* sc = b[s].scales + 8 * h;
      std::int16_t* y = q + 128 * h;
      for (int l = 0; l < 32; ++l) {
        int is = l / 16;
        y[l] = static_cast<std::int16_t>((((ql[l] & 0xF) | ((qh[l] & 3) << 4)) - 32) * sc[is]);
        y[l + 32] = static_cast<std::int16_t>(
            (((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32) * sc[is + 2]);
        y[l + 64] = static_cast<std::int16_t>((((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32) *
                                              sc[is + 4]);
        y[l + 96] = static_cast<std::int16_t>(
            (((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32) * sc[is + 6]);
      }
    }
  }
}

inline __m256i load32(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
inline __m128i load16(const void* p) { return _mm_loadu_si128(static_cast<const __m128i*>(p)); }

// Q2_K / Q3_K values 64 p .. 64 p + 63 of a super-block (p < 4): value
// 128 h + 32 k + l sits at bits 2k of qs[32 h + l], so these are bits
// 4 (p % 2) (bytes 0-31) and 4 (p % 2) + 2 (bytes 32-63) of the 32 bytes
// qs[32 (p / 2) ..], and their 16-value sub-blocks 4p .. 4p + 3 are the
// register's 128-bit lanes.
inline __m512i low2_codes(const std::uint8_t* qs, int p) {
  __m512i v = _mm512_srli_epi16(_mm512_broadcast_i64x4(load32(qs + 32 * (p / 2))),
                                static_cast<unsigned>(4 * (p % 2)));
  v = _mm512_mask_blend_epi64(0xF0, v, _mm512_srli_epi16(v, 2));
  return _mm512_and_si512(v, _mm512_set1_epi8(3));
}

// The matching high bits of Q3_K: bit 4 (p / 2) + 2 (p % 2) of hmask[l]
// (bytes 0-31) and the next bit (bytes 32-63).
inline __mmask64 q3_k_high(const std::uint8_t* hmask, int p) {
  const int bit = 4 * (p / 2) + 2 * (p % 2);
  const __m512i test =
      _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_set1_epi8(static_cast<char>(1 << bit))),
                         _mm256_set1_epi8(static_cast<char>(1 << (bit + 1))), 1);
  return _mm512_test_epi8_mask(_mm512_broadcast_i64x4(load32(hmask)), test);
}

// int16 lanes 0-15 = lane j of s, 16-31 = lane j + 1.
inline __m512i spread_pair16(__m256i s, int j) {
  const __m512i idx =
      _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_set1_epi16(static_cast<short>(j))),
                         _mm256_set1_epi16(static_cast<short>(j + 1)), 1);
  return _mm512_permutexvar_epi16(idx, _mm512_castsi256_si512(s));
}

// As ggml's dequantize_row_q3_K, 64 values at a time: value 128 h + 32 k + l
// (k < 4, l < 32) has its low 2 bits at bits 2k of qs[32 h + l], its high
// bit (set: no offset, clear: minus 4) at bit 4h + k of hmask[l], and scale
// 8h + 2k + l / 16 (low2_codes). The scalar loop it replaced took 10% of
// a 512-token, 1-thread Q3_K prefill of the 100M model (perf), this 2.6%.
void decode_q3_k(const ggml::BlockQ3_K* b, std::int64_t nb, std::int16_t* q, float* d) {
  const __m512i four = _mm512_set1_epi8(4);
  for (std::int64_t s = 0; s < nb; ++s, q += ggml::kQKK) {
    d[s] = ggml::fp16_to_f32(b[s].d);
    const __m256i sc = _mm256_cvtepi8_epi16(q3_k_scales(b[s].scales));  // ggml's, centred
    TOK_UNROLL
    for (int p = 0; p < 4; ++p) {
      __m512i c = low2_codes(b[s].qs, p);
      c = _mm512_sub_epi8(_mm512_mask_add_epi8(c, q3_k_high(b[s].hmask, p), c, four), four);
      const __m512i lo = _mm512_cvtepi8_epi16(_mm512_castsi512_si256(c));
      const __m512i hi = _mm512_cvtepi8_epi16(_mm512_extracti64x4_epi64(c, 1));
      _mm512_storeu_si512(q + 64 * p, _mm512_mullo_epi16(lo, spread_pair16(sc, 4 * p)));
      _mm512_storeu_si512(q + 64 * p + 32, _mm512_mullo_epi16(hi, spread_pair16(sc, 4 * p + 2)));
    }
  }
}

// As ggml's dequantize_row_q2_K (the layout of decode_q3_k without the high
// bits): q * sc as bytes, sub-block j with scale | min << 4 in one byte;
// q * sc by two masked moves (q is 0..3). The scalar loop it replaced took
// 17% of a 512-token, 1-thread Q2_K prefill of the 100M model (perf), this
// 2.3%.
void decode_q2_k(const ggml::BlockQ2_K* b, std::int64_t nb, std::uint8_t* q, float* d,
                 float* mins) {
  const __m512i lanes =
      _mm512_set_epi64(0x0303030303030303, 0x0303030303030303, 0x0202020202020202,
                       0x0202020202020202, 0x0101010101010101, 0x0101010101010101, 0, 0);
  const __m128i low = _mm_set1_epi8(0x0F);
  for (std::int64_t s = 0; s < nb; ++s, q += ggml::kQKK) {
    d[s] = ggml::fp16_to_f32(b[s].d);
    const __m128i sm = load16(b[s].scales);
    const __m512 m =
        _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_and_si128(_mm_srli_epi16(sm, 4), low)));
    _mm512_storeu_ps(mins + 16 * s, _mm512_mul_ps(_mm512_set1_ps(ggml::fp16_to_f32(b[s].dmin)), m));
    const __m512i sc = _mm512_broadcast_i32x4(_mm_and_si128(sm, low));
    TOK_UNROLL
    for (int p = 0; p < 4; ++p) {
      const __m512i c = low2_codes(b[s].qs, p);
      const __m512i v = _mm512_shuffle_epi8(
          sc, _mm512_add_epi8(lanes, _mm512_set1_epi8(static_cast<char>(4 * p))));
      const __m512i one = _mm512_maskz_mov_epi8(_mm512_test_epi8_mask(c, _mm512_set1_epi8(1)), v);
      const __m512i two = _mm512_maskz_mov_epi8(_mm512_test_epi8_mask(c, _mm512_set1_epi8(2)),
                                                _mm512_add_epi8(v, v));
      _mm512_storeu_si512(q + 64 * p, _mm512_add_epi8(one, two));
    }
  }
}

void decode_rows(const TensorView& w, std::int64_t r, std::int64_t m, IntRows& out) {
  const std::int64_t nb = w.cols / ggml::kQKK;
  for (std::int64_t i = 0; i < m; ++i) {
    std::int16_t* q = out.q.data() + i * w.cols;
    float* d = out.d.data() + i * nb;
    if (w.type == DType::kQ4_K) {
      decode_q4_k(reinterpret_cast<const ggml::BlockQ4_K*>(w.row(r + i)), nb, q, d,
                  out.mins.data() + i * w.cols / ggml::kQK);
    } else if (w.type == DType::kQ3_K) {
      decode_q3_k(reinterpret_cast<const ggml::BlockQ3_K*>(w.row(r + i)), nb, q, d);
    } else if (w.type == DType::kQ2_K) {
      decode_q2_k(reinterpret_cast<const ggml::BlockQ2_K*>(w.row(r + i)), nb,
                  out.b.data() + i * w.cols, d, out.mins.data() + i * w.cols / 16);
    } else {
      decode_q6_k(reinterpret_cast<const ggml::BlockQ6_K*>(w.row(r + i)), nb, q, d);
    }
  }
}

// acc - a . b over n floats (16 at a time, the tail masked), still in lanes.
__m512 minus_dot(__m512 acc, const float* a, const float* b, std::int64_t n) {
  std::int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    acc = _mm512_fnmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), acc);
  if (i < n) {
    __mmask16 k = static_cast<__mmask16>((1u << (n - i)) - 1);
    acc = _mm512_fnmadd_ps(_mm512_maskz_loadu_ps(k, a + i), _mm512_maskz_loadu_ps(k, b + i), acc);
  }
  return acc;
}

// The lane sums of four vectors, in lanes 0..3: one transposing reduction
// where four separate horizontal sums cost twice the instructions (the
// tiles' sums over a 768-value row are short enough for it to show).
__m128 reduce4(__m512 a, __m512 b, __m512 c, __m512 d) {
  auto half = [](__m512 v) {
    return _mm256_add_ps(_mm512_castps512_ps256(v),
                         _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
  };
  __m256 u = _mm256_hadd_ps(_mm256_hadd_ps(half(a), half(b)), _mm256_hadd_ps(half(c), half(d)));
  return _mm_add_ps(_mm256_castps256_ps128(u), _mm256_extractf128_ps(u, 1));
}

// y[(t + j) * ldy + m] = (decoded row i + m) . (token t + j), m < RM, j < RN.
// Bytes: the rows' unsigned bytes (w.b) with the activations' bytes, 64
// products per vpdpbusd, where the int16 values take two vpdpwssd.
template <int RM, int RN, bool Bytes>
void tile(const IntRows& w, std::int64_t i, const ActQ8K& x, std::int64_t t, int mins, float* y,
          std::int64_t ldy) {
  const std::int64_t cols = w.cols, nb = cols / ggml::kQKK;
  const std::int16_t* wq[RM];
  const float* wd[RM];
  const std::int16_t* xq[RN];
  const float* xd[RN];
  TOK_UNROLL
  for (int m = 0; m < RM; ++m)
    wq[m] = Bytes ? nullptr : w.q.data() + (i + m) * cols, wd[m] = w.d.data() + (i + m) * nb;
  TOK_UNROLL
  for (int j = 0; j < RN; ++j)
    xq[j] = Bytes ? nullptr : x.q.data() + (t + j) * cols, xd[j] = x.d.data() + (t + j) * nb;
  const std::uint8_t* wb = Bytes ? w.b.data() + i * cols : nullptr;
  const std::int8_t* xb = Bytes ? x.q8.data() + t * cols : nullptr;
  __m512 acc[RM][RN];
  TOK_UNROLL
  for (int m = 0; m < RM; ++m) {
    TOK_UNROLL
    for (int j = 0; j < RN; ++j) acc[m][j] = _mm512_setzero_ps();
  }
  for (std::int64_t s = 0; s < nb; ++s) {
    __m512i isum[RM][RN];
    TOK_UNROLL
    for (int m = 0; m < RM; ++m) {
      TOK_UNROLL
      for (int j = 0; j < RN; ++j) isum[m][j] = _mm512_setzero_si512();
    }
    if constexpr (Bytes) {
      TOK_UNROLL
      for (std::int64_t c = s * ggml::kQKK; c < (s + 1) * ggml::kQKK; c += 64) {
        __m512i xv[RN];
        TOK_UNROLL
        for (int j = 0; j < RN; ++j) xv[j] = _mm512_loadu_si512(xb + j * cols + c);
        TOK_UNROLL
        for (int m = 0; m < RM; ++m) {
          __m512i wv = _mm512_loadu_si512(wb + m * cols + c);
          TOK_UNROLL
          for (int j = 0; j < RN; ++j) isum[m][j] = _mm512_dpbusd_epi32(isum[m][j], wv, xv[j]);
        }
      }
    } else {
      TOK_UNROLL
      for (std::int64_t c = s * ggml::kQKK; c < (s + 1) * ggml::kQKK; c += 32) {
        __m512i xv[RN];
        TOK_UNROLL
        for (int j = 0; j < RN; ++j) xv[j] = _mm512_loadu_si512(xq[j] + c);
        TOK_UNROLL
        for (int m = 0; m < RM; ++m) {
          __m512i wv = _mm512_loadu_si512(wq[m] + c);
          TOK_UNROLL
          for (int j = 0; j < RN; ++j) isum[m][j] = _mm512_dpwssd_epi32(isum[m][j], wv, xv[j]);
        }
      }
    }
    __m512 xs[RN];
    TOK_UNROLL
    for (int j = 0; j < RN; ++j) xs[j] = _mm512_set1_ps(xd[j][s]);
    TOK_UNROLL
    for (int m = 0; m < RM; ++m) {
      __m512 ws = _mm512_set1_ps(wd[m][s]);
      TOK_UNROLL
      for (int j = 0; j < RN; ++j) {
        acc[m][j] =
            _mm512_fmadd_ps(_mm512_cvtepi32_ps(isum[m][j]), _mm512_mul_ps(ws, xs[j]), acc[m][j]);
      }
    }
  }
  if (mins) {  // the values per min: 32 (Q4_K, x.sums) or 16 (Q2_K, x.sums16)
    const float* sums = mins == ggml::kQK ? x.sums.data() : x.sums16.data();
    const std::int64_t n = cols / mins;
    TOK_UNROLL
    for (int m = 0; m < RM; ++m) {
      TOK_UNROLL
      for (int j = 0; j < RN; ++j)
        acc[m][j] = minus_dot(acc[m][j], w.mins.data() + (i + m) * n, sums + (t + j) * n, n);
    }
  }
  TOK_UNROLL
  for (int j = 0; j < RN; ++j) {
    float* out = y + (t + j) * ldy;
    if constexpr (RM == 4) {
      _mm_storeu_ps(out, reduce4(acc[0][j], acc[1][j], acc[2][j], acc[3][j]));
    } else {
      TOK_UNROLL
      for (int m = 0; m < RM; ++m) out[m] = _mm512_reduce_add_ps(acc[m][j]);
    }
  }
}

// Decoded rows [0, rows) times tokens [t0, t1), into y (row 0's column).
template <bool Bytes>
void block(const IntRows& w, std::int64_t rows, const ActQ8K& x, std::int64_t t0, std::int64_t t1,
           int mins, float* y, std::int64_t ldy) {
  auto row_tile = [&]<int M>(std::int64_t i) {
    std::int64_t t = t0;
    for (; t + kRn <= t1; t += kRn) tile<M, kRn, Bytes>(w, i, x, t, mins, y + i, ldy);
    for (; t < t1; ++t) tile<M, 1, Bytes>(w, i, x, t, mins, y + i, ldy);
  };
  std::int64_t i = 0;
  for (; i + kRm <= rows; i += kRm) row_tile.template operator()<kRm>(i);
  for (; i < rows; ++i) row_tile.template operator()<1>(i);
}

}  // namespace

// kernels_avx512_gemm_q4_k.cpp: Q4_K (Q5_K) rows in groups of 16, byte dots.
void gemm_q4_k_x16_avx512(const TensorView& w, std::int64_t r0, std::int64_t r1, const ActQ8K& x,
                          float* y, std::int64_t ldy);
void gemm_q5_k_avx512(const TensorView& w, std::int64_t r0, std::int64_t r1, const ActQ8K& x,
                      float* y, std::int64_t ldy);

// Called by gemm_avx512 (kernels_avx512.cpp) for Q2_K / Q3_K / Q4_K / Q5_K / Q6_K weights when
// a.xk holds the batch as q8_K.
void gemm_k_avx512(const TensorView& w, std::int64_t r0, std::int64_t r1, const ActBatch& a,
                   float* y, std::int64_t ldy) {
  const ActQ8K& x = *a.xk;
  if (w.type == DType::kQ5_K) return gemm_q5_k_avx512(w, r0, r1, x, y, ldy);
  if (w.type == DType::kQ4_K) {  // whole groups of 16 rows as bytes; the rest below
    const std::int64_t r16 = r0 + (r1 - r0) / 16 * 16;
    gemm_q4_k_x16_avx512(w, r0, r16, x, y, ldy);
    r0 = r16;
    if (r0 == r1) return;
  }
  const std::int64_t block_m = block_rows(w.cols);
  IntRows rows;
  rows.cols = w.cols;
  const bool bytes = w.type == DType::kQ2_K;
  if (bytes) {
    rows.b.resize(static_cast<std::size_t>(block_m * w.cols));
  } else {
    rows.q.resize(static_cast<std::size_t>(block_m * w.cols));
  }
  rows.d.resize(static_cast<std::size_t>(block_m * w.cols / ggml::kQKK));
  rows.mins.resize(static_cast<std::size_t>(block_m * w.cols / 16));
  const int mins = min_span(w.type);
  for (std::int64_t r = r0; r < r1; r += block_m) {
    std::int64_t m = std::min(block_m, r1 - r);
    decode_rows(w, r, m, rows);
    for (std::int64_t t = 0; t < a.n; t += kBlockTokens) {
      const std::int64_t t1 = std::min(a.n, t + kBlockTokens);
      bytes ? block<true>(rows, m, x, t, t1, mins, y + r, ldy)
            : block<false>(rows, m, x, t, t1, mins, y + r, ldy);
    }
  }
}

}  // namespace tok::model

#endif
