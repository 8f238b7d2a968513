// AVX-512 VNNI kernels for Q4_1, Q5_0, Q5_1, Q2_K, Q3_K and Q5_K weights on
// Q8_0 activations (issue #21): the AVX2 kernels' integer dots
// (kernels_avx2_types.cpp) with two 32-value blocks per 512-bit register and
// one `dpbusd` (unsigned codes x signed activations, four products summed
// into each int32 lane) in place of maddubs + madd. Compiled with the
// AVX-512 kernel files' flags (src/CMakeLists.txt); kernels_avx512.cpp puts
// the ones that measured faster than the AVX2 kernels in its table.
//
// Every code here is unsigned (a nibble, plus 16 for a 5th bit, or 0..7), so
// dpbusd takes it as is; a signed value q - o is dpbusd(-o sum(x), q, x),
// the correction being one more dpbusd on the activations. Integer sums are
// exact, so results equal the AVX2 and scalar kernels' up to the order of
// the float multiply-adds (one per 32 values, or per 16 for Q2_K / Q3_K).
//
// Lanes: a register holds activation blocks b and b + 1 as stored (bytes
// 0-31, 32-63); int32 lane i sums elements 4i .. 4i + 3, so lanes 0-7 belong
// to block b, 8-15 to b + 1, and each 4 lanes to one 16-value sub-block.
// The per-block float scales are spread over the lanes with one permute.
//
// No software prefetch: unlike Q4_0 / Q8_0 decode on Intel (kernels_avx512.cpp),
// prefetching 4 KiB ahead changed the 54M model's decode by -9% to +5% across
// the six types on the AMD machine (tokens per CPU-second, medians of 5),
// within run-to-run spread there.
//
// As kernels_avx512.cpp: no simd_avx2.hpp here (its inline helpers compiled
// with these flags could be the copy the linker keeps), and GCC 12's
// -Wmaybe-uninitialized inside its own AVX-512 headers is silenced.
#include "model/kernels_avx512_types.hpp"
#include "model/kernels.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include "model/avx512_k_blocks.hpp"
#include "model/avx512_prelude.hpp"

#include <cstring>

namespace tok::model::avx512 {
namespace {

inline __m256i load32(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
inline __m128i load16(const void* p) { return _mm_loadu_si128(static_cast<const __m128i*>(p)); }

// Activation blocks x0 and x1 in one register, as stored.
inline __m512i acts(const ggml::BlockQ8_0& x0, const ggml::BlockQ8_0& x1) {
  return _mm512_inserti64x4(_mm512_castsi256_si512(load32(x0.qs)), load32(x1.qs), 1);
}

// Float lanes 0-7 = lane a of v, 8-15 = lane b.
inline __m512 spread2(__m128 v, int a, int b) {
  const __m512i idx =
      _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_set1_epi32(a)), _mm256_set1_epi32(b), 1);
  return _mm512_permutexvar_ps(idx, _mm512_castps128_ps512(v));
}

// Float lanes 4i .. 4i + 3 = lane first + i of v (i < 4): one 16-value
// sub-block scale per 4 lanes.
inline __m512 spread4(__m512 v, int first) {
  const __m512i idx = _mm512_add_epi32(
      _mm512_set1_epi32(first), _mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3));
  return _mm512_permutexvar_ps(idx, v);
}

// A block's 16 nibble bytes as 32 codes (low nibbles elements 0-15, high
// 16-31), blocks b0 and b1 in one register.
inline __m512i nibbles2(const std::uint8_t* q0, const std::uint8_t* q1) {
  __m512i v = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_broadcastsi128_si256(load16(q0))),
                                 _mm256_broadcastsi128_si256(load16(q1)), 1);
  return _mm512_and_si512(_mm512_mask_blend_epi64(0xCC, v, _mm512_srli_epi16(v, 4)),
                          _mm512_set1_epi8(0x0F));
}

// Codes plus 16 where the 5th bit (qh: bit i for element i) is set.
inline __m512i add_5th_bits(__m512i codes, const std::uint8_t* qh0, const std::uint8_t* qh1) {
  std::uint32_t h0, h1;
  std::memcpy(&h0, qh0, 4);
  std::memcpy(&h1, qh1, 4);
  const __mmask64 m = static_cast<__mmask64>(h0) | (static_cast<__mmask64>(h1) << 32);
  return _mm512_mask_add_epi8(codes, m, codes, _mm512_set1_epi8(0x10));
}

inline __m512i dpbusd(__m512i acc, __m512i u, __m512i s) { return _mm512_dpbusd_epi32(acc, u, s); }

// An all-zero activation block: pairs an odd last block with nothing (its
// scale 0 zeroes whatever the weights give).
const ggml::BlockQ8_0 kZeroBlock{};

// 32-value types, two blocks per step: Pair(w0, w1, x0, x1, acc) adds the
// pair's contribution to acc. Two accumulators; an odd last block paired
// with kZeroBlock.
template <class Block, class Pair>
float rows32(const Block* w, const ggml::BlockQ8_0* x, std::int64_t n, Pair pair) {
  const std::int64_t nb = n / ggml::kQK;
  __m512 acc[2] = {_mm512_setzero_ps(), _mm512_setzero_ps()};
  std::int64_t b = 0;
  for (; b + 4 <= nb; b += 4) {
    pair(w[b], w[b + 1], x[b], x[b + 1], acc[0]);
    pair(w[b + 2], w[b + 3], x[b + 2], x[b + 3], acc[1]);
  }
  for (; b + 2 <= nb; b += 2) pair(w[b], w[b + 1], x[b], x[b + 1], acc[0]);
  if (b < nb) pair(w[b], w[b], x[b], kZeroBlock, acc[1]);
  return _mm512_reduce_add_ps(_mm512_add_ps(acc[0], acc[1]));
}

// Q4_1 / Q5_1: d dx sum(q x) + m dx sum(x) per block (the x sums from the
// Q8_0 block, as the AVX2 kernel).
template <class Block, __m512i (*Codes)(const Block&, const Block&)>
inline void pair_with_min(const Block& w0, const Block& w1, const ggml::BlockQ8_0& x0,
                          const ggml::BlockQ8_0& x1, __m512& acc) {
  const __m512i xv = acts(x0, x1);
  __m512 dot = _mm512_cvtepi32_ps(dpbusd(_mm512_setzero_si512(), Codes(w0, w1), xv));
  __m512 sum = _mm512_cvtepi32_ps(dpbusd(_mm512_setzero_si512(), _mm512_set1_epi8(1), xv));
  __m128 wv =
      _mm_cvtph_ps(_mm_setr_epi16(static_cast<short>(w0.d), static_cast<short>(w1.d),
                                  static_cast<short>(w0.m), static_cast<short>(w1.m), 0, 0, 0, 0));
  __m128 xd =
      _mm_cvtph_ps(_mm_setr_epi16(static_cast<short>(x0.d), static_cast<short>(x1.d),
                                  static_cast<short>(x0.d), static_cast<short>(x1.d), 0, 0, 0, 0));
  __m128 s = _mm_mul_ps(wv, xd);  // d0 dx0, d1 dx1, m0 dx0, m1 dx1
  acc = _mm512_fmadd_ps(spread2(s, 0, 1), dot, acc);
  acc = _mm512_fmadd_ps(spread2(s, 2, 3), sum, acc);
}

inline __m512i q4_1_codes(const ggml::BlockQ4_1& a, const ggml::BlockQ4_1& b) {
  return nibbles2(a.qs, b.qs);
}
inline __m512i q5_1_codes(const ggml::BlockQ5_1& a, const ggml::BlockQ5_1& b) {
  return add_5th_bits(nibbles2(a.qs, b.qs), a.qh, b.qh);
}

// Q5_0: (q - 16) with q = nibble + 16 * 5th bit.
inline void pair_q5_0(const ggml::BlockQ5_0& w0, const ggml::BlockQ5_0& w1,
                      const ggml::BlockQ8_0& x0, const ggml::BlockQ8_0& x1, __m512& acc) {
  const __m512i xv = acts(x0, x1);
  const __m512i corr = _mm512_sub_epi32(_mm512_setzero_si512(),
                                        dpbusd(_mm512_setzero_si512(), _mm512_set1_epi8(16), xv));
  __m512i codes = add_5th_bits(nibbles2(w0.qs, w1.qs), w0.qh, w1.qh);
  __m512 dot = _mm512_cvtepi32_ps(dpbusd(corr, codes, xv));
  __m128 s = _mm_mul_ps(_mm_cvtph_ps(_mm_setr_epi16(static_cast<short>(w0.d),
                                                    static_cast<short>(w1.d), 0, 0, 0, 0, 0, 0)),
                        _mm_cvtph_ps(_mm_setr_epi16(static_cast<short>(x0.d),
                                                    static_cast<short>(x1.d), 0, 0, 0, 0, 0, 0)));
  acc = _mm512_fmadd_ps(spread2(s, 0, 1), dot, acc);
}

// The eight Q8_0 scales of a super-block's activations as floats.
inline __m256 act_scales8(const ggml::BlockQ8_0* x) {
  return _mm256_cvtph_ps(_mm_setr_epi16(static_cast<short>(x[0].d), static_cast<short>(x[1].d),
                                        static_cast<short>(x[2].d), static_cast<short>(x[3].d),
                                        static_cast<short>(x[4].d), static_cast<short>(x[5].d),
                                        static_cast<short>(x[6].d), static_cast<short>(x[7].d)));
}

// Those eight scales for the 16 sub-blocks of 16 (lane j: block j / 2).
inline __m512 act_scales16(const ggml::BlockQ8_0* x) {
  const __m512i idx = _mm512_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7);
  return _mm512_permutexvar_ps(idx, _mm512_castps256_ps512(act_scales8(x)));
}

}  // namespace

float dot_q4_1(const ggml::BlockQ4_1* w, const ggml::BlockQ8_0* x, std::int64_t n) {
  return rows32(w, x, n, pair_with_min<ggml::BlockQ4_1, q4_1_codes>);
}
float dot_q5_1(const ggml::BlockQ5_1* w, const ggml::BlockQ8_0* x, std::int64_t n) {
  return rows32(w, x, n, pair_with_min<ggml::BlockQ5_1, q5_1_codes>);
}
float dot_q5_0(const ggml::BlockQ5_0* w, const ggml::BlockQ8_0* x, std::int64_t n) {
  return rows32(w, x, n, pair_q5_0);
}

// Q5_K: sub-block j (one Q8_0 block) is d sc_j q - dmin m_j; sub-blocks 2k
// and 2k + 1 are the low and high nibbles of qs[32 k ..], their 5th bits
// bits 2k and 2k + 1 of qh. Per super-block the 8 factors d sc_j dx_j and
// dmin m_j dx_j are computed once (scales unpacked as llama.cpp does).
float dot_q5_k(const ggml::BlockQ5_K* w, const ggml::BlockQ8_0* x, std::int64_t n) {
  __m512 acc[2] = {_mm512_setzero_ps(), _mm512_setzero_ps()};
  const __m512i ones = _mm512_set1_epi8(1);
  for (std::int64_t b = 0; b < n / ggml::kQKK; ++b, x += ggml::kQKK / ggml::kQK) {
    const __m128i sm = k4_scales_mins(w[b].scales);  // bytes 0-7: sc_0..7, 8-15: m_0..7
    const __m256 dx = act_scales8(x);
    const __m256 sc = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(sm)), dx);
    const __m256 mn =
        _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(sm, 8))), dx);
    const __m512 fs = _mm512_castps256_ps512(_mm256_mul_ps(sc, _mm256_set1_ps(_cvtsh_ss(w[b].d))));
    const __m512 fm =
        _mm512_castps256_ps512(_mm256_mul_ps(mn, _mm256_set1_ps(_cvtsh_ss(w[b].dmin))));
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) {
      __m512i codes = codes2(w[b].qs + 32 * k, 0, 4, 0x0F);
      codes = _mm512_mask_add_epi8(codes, bits2(w[b].qh, 2 * k), codes, _mm512_set1_epi8(0x10));
      const __m512i xv = acts(x[2 * k], x[2 * k + 1]);
      const __m512i idx = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_set1_epi32(2 * k)),
                                             _mm256_set1_epi32(2 * k + 1), 1);
      __m512 dot = _mm512_cvtepi32_ps(dpbusd(_mm512_setzero_si512(), codes, xv));
      __m512 sum = _mm512_cvtepi32_ps(dpbusd(_mm512_setzero_si512(), ones, xv));
      acc[k & 1] = _mm512_fmadd_ps(_mm512_permutexvar_ps(idx, fs), dot, acc[k & 1]);
      acc[k & 1] = _mm512_fnmadd_ps(_mm512_permutexvar_ps(idx, fm), sum, acc[k & 1]);
    }
  }
  return _mm512_reduce_add_ps(_mm512_add_ps(acc[0], acc[1]));
}

// Q3_K: in half h (128 values) of a super-block, Q8_0 block 4h + s (s < 4)
// is bits 2s, 2s + 1 of qs[32 h ..], plus 4 where bit 4h + s of hmask is
// set, minus 4; each 16 values have a signed 6-bit scale (minus 32), so
// each 4 lanes of a dpbusd sum take their own float factor d sc dx.
float dot_q3_k(const ggml::BlockQ3_K* w, const ggml::BlockQ8_0* x, std::int64_t n) {
  __m512 acc[2] = {_mm512_setzero_ps(), _mm512_setzero_ps()};
  const __m512i four = _mm512_set1_epi8(4);
  for (std::int64_t b = 0; b < n / ggml::kQKK; ++b, x += ggml::kQKK / ggml::kQK) {
    const __m128i s8 = q3_k_scales(w[b].scales);
    const __m512 f =
        _mm512_mul_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(s8)), act_scales16(x)),
                      _mm512_set1_ps(_cvtsh_ss(w[b].d)));
#pragma GCC unroll 4
    for (int p = 0; p < 4; ++p) {
      const int h = p / 2, s = 2 * (p % 2);
      __m512i codes = codes2(w[b].qs + 32 * h, 2 * s, 2, 3);
      codes = _mm512_mask_add_epi8(codes, bits2(w[b].hmask, 4 * h + s), codes, four);
      const __m512i xv = acts(x[2 * p], x[2 * p + 1]);
      const __m512i corr =
          _mm512_sub_epi32(_mm512_setzero_si512(), dpbusd(_mm512_setzero_si512(), four, xv));
      __m512 dot = _mm512_cvtepi32_ps(dpbusd(corr, codes, xv));
      acc[p & 1] = _mm512_fmadd_ps(spread4(f, 4 * p), dot, acc[p & 1]);
    }
  }
  return _mm512_reduce_add_ps(_mm512_add_ps(acc[0], acc[1]));
}

// Q2_K: Q3_K's layout without the high bits; each 16 values have a 4-bit
// scale and a 4-bit minimum: d sc q - dmin m, so per 4 lanes the factors
// d sc dx (codes) and dmin m dx (activation sums).
float dot_q2_k(const ggml::BlockQ2_K* w, const ggml::BlockQ8_0* x, std::int64_t n) {
  __m512 acc[2] = {_mm512_setzero_ps(), _mm512_setzero_ps()};
  const __m512i ones = _mm512_set1_epi8(1);
  for (std::int64_t b = 0; b < n / ggml::kQKK; ++b, x += ggml::kQKK / ggml::kQK) {
    const __m128i sm = load16(w[b].scales);
    const __m128i lowm = _mm_set1_epi8(0x0F);
    const __m512 dx = act_scales16(x);
    const __m512 fs = _mm512_mul_ps(
        _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_and_si128(sm, lowm))), dx),
        _mm512_set1_ps(_cvtsh_ss(w[b].d)));
    const __m512 fm = _mm512_mul_ps(
        _mm512_mul_ps(
            _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_and_si128(_mm_srli_epi16(sm, 4), lowm))),
            dx),
        _mm512_set1_ps(_cvtsh_ss(w[b].dmin)));
#pragma GCC unroll 4
    for (int p = 0; p < 4; ++p) {
      const int h = p / 2, s = 2 * (p % 2);
      const __m512i codes = codes2(w[b].qs + 32 * h, 2 * s, 2, 3);
      const __m512i xv = acts(x[2 * p], x[2 * p + 1]);
      __m512 dot = _mm512_cvtepi32_ps(dpbusd(_mm512_setzero_si512(), codes, xv));
      __m512 sum = _mm512_cvtepi32_ps(dpbusd(_mm512_setzero_si512(), ones, xv));
      acc[p & 1] = _mm512_fmadd_ps(spread4(fs, 4 * p), dot, acc[p & 1]);
      acc[p & 1] = _mm512_fnmadd_ps(spread4(fm, 4 * p), sum, acc[p & 1]);
    }
  }
  return _mm512_reduce_add_ps(_mm512_add_ps(acc[0], acc[1]));
}

}  // namespace tok::model::avx512

#endif
