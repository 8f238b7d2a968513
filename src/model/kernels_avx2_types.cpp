// AVX2 + FMA kernels for the weight types of GGUF "_M" / "_S" mixes beside
// Q8_0: Q4_1, Q5_0, Q5_1, Q2_K, Q3_K and Q5_K as integer dots
// with Q8_0 activations (llama.cpp's approach; it uses Q8_1 / Q8_K blocks
// for some). Against float activations and a super-block dequantized in
// registers (dot_q4_k's approach, measured first), Q5_K decode of a 54M
// model ran about 1.8x faster, and ahead of llama.cpp (BENCHMARKS.md).
// Compiled with -mavx2 -mfma -mf16c (src/CMakeLists.txt); kernels_avx2.cpp
// puts them in its table (the AVX-512 set has its own,
// kernels_avx512_types.cpp). Q4_K and Q6_K (decode
// only) take Q8_K blocks instead, as in llama.cpp, and so do Q2_K, Q3_K and
// Q5_K for decode (the *_q8k kernels at the end).
#include "model/kernels.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <cstring>

#include "model/simd_avx2.hpp"

namespace tok::model::avx2 {
namespace {

// Byte j is 0xFF where bit j of the little-endian uint32 at p is set
// (ggml's bytes_from_bits_32): the 5th bits of Q5_0 / Q5_1, in element order.
inline __m256i bit_bytes(const std::uint8_t* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  const __m256i spread =
      _mm256_set_epi64x(0x0303030303030303, 0x0202020202020202, 0x0101010101010101, 0);
  __m256i b = _mm256_shuffle_epi8(_mm256_set1_epi32(static_cast<int>(v)), spread);
  b = _mm256_or_si256(b, _mm256_set1_epi64x(0x7fbfdfeff7fbfdfe));
  return _mm256_cmpeq_epi8(b, _mm256_set1_epi64x(-1));
}

// Unsigned codes q in [0, 31] times signed activations, 8 int32 sums.
inline __m256i dot_u8(__m256i q, __m256i x) {
  return _mm256_madd_epi16(_mm256_maddubs_epi16(q, x), _mm256_set1_epi16(1));
}

// Q4_1 / Q5_1: d dx sum(q xq) + m dx sum(xq) per block. The activation sums
// come from the Q8_0 block (llama.cpp's Q8_1 blocks carry them); two blocks
// per iteration so the two multiply-add chains overlap.
template <class Block, __m256i (*Codes)(const Block&)>
float dot_with_min(const Block* w, const ggml::BlockQ8_0* x, std::int64_t n) {
  __m256 acc[2] = {_mm256_setzero_ps(), _mm256_setzero_ps()};
  __m256 mins[2] = {_mm256_setzero_ps(), _mm256_setzero_ps()};
  const __m256i ones = _mm256_set1_epi8(1);
  std::int64_t nb = n / ggml::kQK;
  for (std::int64_t b = 0; b < nb; ++b) {
    __m256i xv = load256(x[b].qs);
    __m256 dot = _mm256_cvtepi32_ps(dot_u8(Codes(w[b]), xv));
    __m256 sum = _mm256_cvtepi32_ps(dot_u8(ones, xv));
    float dx = half(x[b].d);
    acc[b & 1] = _mm256_fmadd_ps(_mm256_set1_ps(half(w[b].d) * dx), dot, acc[b & 1]);
    mins[b & 1] = _mm256_fmadd_ps(_mm256_set1_ps(half(w[b].m) * dx), sum, mins[b & 1]);
  }
  return hsum(_mm256_add_ps(_mm256_add_ps(acc[0], acc[1]), _mm256_add_ps(mins[0], mins[1])));
}

__m256i q4_1_codes(const ggml::BlockQ4_1& b) { return nibbles(b.qs); }
__m256i q5_1_codes(const ggml::BlockQ5_1& b) {
  return _mm256_or_si256(nibbles(b.qs), _mm256_and_si256(bit_bytes(b.qh), _mm256_set1_epi8(0x10)));
}

}  // namespace

float dot_q4_1(const ggml::BlockQ4_1* w, const ggml::BlockQ8_0* x, std::int64_t n) {
  return dot_with_min<ggml::BlockQ4_1, q4_1_codes>(w, x, n);
}
float dot_q5_1(const ggml::BlockQ5_1* w, const ggml::BlockQ8_0* x, std::int64_t n) {
  return dot_with_min<ggml::BlockQ5_1, q5_1_codes>(w, x, n);
}

// Q5_0: q - 16 as a signed byte is the nibble with 0xF0 or'ed in where the
// 5th bit is clear (ggml's trick); then dot_i8's sign trick, as Q4_0.
float dot_q5_0(const ggml::BlockQ5_0* w, const ggml::BlockQ8_0* x, std::int64_t n) {
  __m256 acc[2] = {_mm256_setzero_ps(), _mm256_setzero_ps()};
  const __m256i high = _mm256_set1_epi8(static_cast<char>(0xF0));
  for (std::int64_t b = 0; b < n / ggml::kQK; ++b) {
    __m256i v = _mm256_or_si256(nibbles(w[b].qs), _mm256_andnot_si256(bit_bytes(w[b].qh), high));
    __m256 p = dot_i8(_mm256_sign_epi8(v, v), v, load256(x[b].qs));
    acc[b & 1] = _mm256_fmadd_ps(_mm256_set1_ps(half(w[b].d) * half(x[b].d)), p, acc[b & 1]);
  }
  return hsum(_mm256_add_ps(acc[0], acc[1]));
}

// The K-quants on Q8_0 activations: a 32-value Q8_0 block covers one Q5_K
// sub-block or two of Q2_K / Q3_K, so each block's sum is integer (codes
// times activations times the integer sub-block scales) and costs one
// float multiply-add; llama.cpp does the same on 256-value Q8_K blocks.

namespace {

// A super-block's 16 sub-block scales as int16 lanes, S; half h of them
// (scales 8h .. 8h + 7) in both 128-bit lanes.
inline __m256i scales_half(__m256i s, int h) {
  return h == 0 ? _mm256_permute2x128_si256(s, s, 0x00) : _mm256_permute2x128_si256(s, s, 0x11);
}

// The sum of the eight int32 lanes of v.
inline int hsum_i32(__m256i v) {
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  s = _mm_add_epi32(s, _mm_unpackhi_epi64(s, s));
  return _mm_cvtsi128_si32(_mm_add_epi32(s, _mm_shuffle_epi32(s, 1)));
}

// From scales_half(S, h), the int16 lanes [S[8h + 2j] x 8 | S[8h + 2j + 1] x 8]:
// madd with a maddubs result scales the first 16 elements of a 32-value
// block by one, the other 16 by the other. One shuffle (constant control
// once the caller's loop over j is unrolled).
inline __m256i pair_scales(__m256i half, int j) {
  const __m256i ctrl =
      _mm256_set_m128i(_mm_set1_epi16(static_cast<short>(((4 * j + 3) << 8) | (4 * j + 2))),
                       _mm_set1_epi16(static_cast<short>(((4 * j + 1) << 8) | (4 * j))));
  return _mm256_shuffle_epi8(half, ctrl);
}

}  // namespace

// Q5_K: sub-block j (one Q8_0 block) is d sc_j q - dmin m_j with q in 0..31:
// the 5th bit of element 64 k + l (l < 32) is bit 2k of qh[l], of element
// 64 k + 32 + l bit 2k + 1.
float dot_q5_k(const ggml::BlockQ5_K* w, const ggml::BlockQ8_0* x, std::int64_t n) {
  __m256 acc[2] = {_mm256_setzero_ps(), _mm256_setzero_ps()};
  const __m256i low = _mm256_set1_epi8(0x0F), ones = _mm256_set1_epi8(1);
  for (std::int64_t b = 0; b < n / ggml::kQKK; ++b, x += ggml::kQKK / ggml::kQK) {
    float d = half(w[b].d), dmin = half(w[b].dmin);
    __m256i qh = load256(w[b].qh);
    for (int k = 0; k < ggml::kQKK / 64; ++k) {
      __m256i q = load256(w[b].qs + 32 * k);
      for (int h = 0; h < 2; ++h) {
        std::uint8_t sc, m;
        ggml::scale_min_k4(2 * k + h, w[b].scales, sc, m);
        // 16-bit shifts: the mask keeps each byte's own bit.
        __m256i nib =
            h == 0 ? _mm256_and_si256(q, low) : _mm256_and_si256(_mm256_srli_epi16(q, 4), low);
        __m256i bit = _mm256_and_si256(_mm256_srli_epi16(qh, 2 * k + h), ones);
        __m256i codes = _mm256_or_si256(nib, _mm256_slli_epi16(bit, 4));
        const ggml::BlockQ8_0& xb = x[2 * k + h];
        __m256i xv = load256(xb.qs);
        float dx = half(xb.d);
        acc[h] = _mm256_fmadd_ps(_mm256_set1_ps(d * sc * dx), _mm256_cvtepi32_ps(dot_u8(codes, xv)),
                                 acc[h]);
        acc[h] = _mm256_fnmadd_ps(_mm256_set1_ps(dmin * m * dx),
                                  _mm256_cvtepi32_ps(dot_u8(ones, xv)), acc[h]);
      }
    }
  }
  return hsum(_mm256_add_ps(acc[0], acc[1]));
}

namespace {

// The 16 6-bit scales of a Q3_K block, minus 32, as int16 lanes (llama.cpp's
// unpacking): scale j's low 4 bits are in byte j % 8 (low nibble for j < 8,
// high nibble after), its high 2 bits in byte 8 + j % 4 at bit 2 (j / 4).
// 32-bit shifts are safe: the masks keep each byte's own bits.
inline __m256i q3_k_scales(const std::uint8_t* p) {
  std::uint32_t a[3];
  std::memcpy(a, p, 12);
  const std::uint32_t low = 0x0F0F0F0F, two = 0x03030303;
  __m128i s = _mm_set_epi32(static_cast<int>(((a[1] >> 4) & low) | (((a[2] >> 6) & two) << 4)),
                            static_cast<int>(((a[0] >> 4) & low) | (((a[2] >> 4) & two) << 4)),
                            static_cast<int>((a[1] & low) | (((a[2] >> 2) & two) << 4)),
                            static_cast<int>((a[0] & low) | ((a[2] & two) << 4)));
  return _mm256_cvtepi8_epi16(_mm_sub_epi8(s, _mm_set1_epi8(32)));
}

// Sub-block s of the 32 code bytes q as q + 4 in 0..7: bits 2s..2s+1 of each
// byte, plus 4 where bit `bit` of the matching hmask byte is set.
inline __m256i q3_k_codes(__m256i q, __m256i hm, int bit, int s) {
  const __m256i mask = _mm256_set1_epi8(static_cast<char>(1 << bit));
  const __m256i high =
      _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(hm, mask), mask), _mm256_set1_epi8(4));
  return _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(q, 2 * s), _mm256_set1_epi8(3)), high);
}

}  // namespace

// Q3_K: in each half (128 elements) of a super-block, element 32 s + l
// (l < 32) is bits 2s..2s+1 of qs[l] plus 4 where bit 4 h + s of hmask[l] is
// set, minus 4, times d and the signed 6-bit scale of its 16 elements:
//   sum(sc (q - 4) x) = madd(maddubs(q, x) - maddubs(4, x), sc).
float dot_q3_k(const ggml::BlockQ3_K* w, const ggml::BlockQ8_0* x, std::int64_t n) {
  __m256 acc[2] = {_mm256_setzero_ps(), _mm256_setzero_ps()};
  const __m256i four = _mm256_set1_epi8(4);
  for (std::int64_t b = 0; b < n / ggml::kQKK; ++b, x += ggml::kQKK / ggml::kQK) {
    float d = half(w[b].d);
    const __m256i scales = q3_k_scales(w[b].scales);
    __m256i hm = load256(w[b].hmask);
    for (int h = 0; h < 2; ++h) {
      __m256i q = load256(w[b].qs + 32 * h);
      __m256i sh = scales_half(scales, h);
#pragma GCC unroll 4
      for (int s = 0; s < 4; ++s) {
        const __m256i codes = q3_k_codes(q, hm, 4 * h + s, s);
        const ggml::BlockQ8_0& xb = x[4 * h + s];
        __m256i xv = load256(xb.qs);
        __m256i p =
            _mm256_sub_epi16(_mm256_maddubs_epi16(codes, xv), _mm256_maddubs_epi16(four, xv));
        __m256i dot = _mm256_madd_epi16(p, pair_scales(sh, s));
        acc[s & 1] =
            _mm256_fmadd_ps(_mm256_set1_ps(d * half(xb.d)), _mm256_cvtepi32_ps(dot), acc[s & 1]);
      }
    }
  }
  return hsum(_mm256_add_ps(acc[0], acc[1]));
}

// Q2_K: the layout of Q3_K without the high bits; each 16 elements have a
// 4-bit scale and a 4-bit minimum: d sc q - dmin m.
float dot_q2_k(const ggml::BlockQ2_K* w, const ggml::BlockQ8_0* x, std::int64_t n) {
  __m256 acc[2] = {_mm256_setzero_ps(), _mm256_setzero_ps()};
  const __m256i three = _mm256_set1_epi8(3), ones = _mm256_set1_epi8(1);
  for (std::int64_t b = 0; b < n / ggml::kQKK; ++b, x += ggml::kQKK / ggml::kQK) {
    float d = half(w[b].d), dmin = half(w[b].dmin);
    __m128i sm = _mm_loadu_si128(reinterpret_cast<const __m128i*>(w[b].scales));
    const __m256i scales = _mm256_cvtepu8_epi16(_mm_and_si128(sm, _mm_set1_epi8(0x0F)));
    const __m256i mins_sc =
        _mm256_cvtepu8_epi16(_mm_and_si128(_mm_srli_epi16(sm, 4), _mm_set1_epi8(0x0F)));
    for (int h = 0; h < 2; ++h) {
      __m256i q = load256(w[b].qs + 32 * h);
      __m256i sh = scales_half(scales, h), mh = scales_half(mins_sc, h);
#pragma GCC unroll 4
      for (int s = 0; s < 4; ++s) {
        __m256i codes = _mm256_and_si256(_mm256_srli_epi16(q, 2 * s), three);
        const ggml::BlockQ8_0& xb = x[4 * h + s];
        __m256i xv = load256(xb.qs);
        __m256i dot = _mm256_madd_epi16(_mm256_maddubs_epi16(codes, xv), pair_scales(sh, s));
        __m256i mins = _mm256_madd_epi16(_mm256_maddubs_epi16(ones, xv), pair_scales(mh, s));
        float dx = half(xb.d);
        acc[s & 1] = _mm256_fmadd_ps(_mm256_set1_ps(d * dx), _mm256_cvtepi32_ps(dot), acc[s & 1]);
        acc[s & 1] =
            _mm256_fnmadd_ps(_mm256_set1_ps(dmin * dx), _mm256_cvtepi32_ps(mins), acc[s & 1]);
      }
    }
  }
  return hsum(_mm256_add_ps(acc[0], acc[1]));
}

// Q4_K on Q8_K activations (llama.cpp's decode pairing): per super-block
// one integer sum of sc_j * (q . x) over its 8 sub-blocks of 32, then
//   d dx isum - dmin dx sum_j m_j (x sums of sub-block j),
// the x sums from the block's 16-value bsums. Against the float kernel
// (dot_q4_k: the super-block dequantized in registers) this is about twice
// the decode rate, and the rounding llama.cpp's ids come from.
float dot_q4_k_q8k(const ggml::BlockQ4_K* w, const ggml::BlockQ8_K* x, std::int64_t n) {
  __m256 acc = _mm256_setzero_ps();
  float mins = 0;
  const __m256i low = _mm256_set1_epi8(0x0F);
  for (std::int64_t b = 0; b < n / ggml::kQKK; ++b) {
    const ggml::BlockQ8_K& xb = x[b];
    __m256i isum = _mm256_setzero_si256();
    int msum = 0;
#pragma GCC unroll 4
    for (int k = 0; k < ggml::kQKK / 64; ++k) {
      std::uint8_t sc0, m0, sc1, m1;
      ggml::scale_min_k4(2 * k, w[b].scales, sc0, m0);
      ggml::scale_min_k4(2 * k + 1, w[b].scales, sc1, m1);
      msum += m0 * (xb.bsums[4 * k] + xb.bsums[4 * k + 1]) +
              m1 * (xb.bsums[4 * k + 2] + xb.bsums[4 * k + 3]);
      __m256i q = load256(w[b].qs + 32 * k);
      __m256i lo = _mm256_maddubs_epi16(_mm256_and_si256(q, low), load256(xb.qs + 64 * k));
      __m256i hi = _mm256_maddubs_epi16(_mm256_and_si256(_mm256_srli_epi16(q, 4), low),
                                        load256(xb.qs + 64 * k + 32));
      isum = _mm256_add_epi32(isum, _mm256_madd_epi16(lo, _mm256_set1_epi16(sc0)));
      isum = _mm256_add_epi32(isum, _mm256_madd_epi16(hi, _mm256_set1_epi16(sc1)));
    }
    acc = _mm256_fmadd_ps(_mm256_set1_ps(half(w[b].d) * xb.d), _mm256_cvtepi32_ps(isum), acc);
    mins += half(w[b].dmin) * xb.d * static_cast<float>(msum);
  }
  return hsum(acc) - mins;
}

// Q6_K on Q8_K activations. In half h (128 elements) of a super-block,
// element 32 g + l (l < 32) has its low 4 bits in ql[64 h + l] (g = 0),
// ql[64 h + 32 + l] (g = 1) or their high nibbles (g = 2, 3), its high 2
// bits at bit 2 g of qh[32 h + l]; the code u minus 32 times the int8
// scale of its 16 elements (8 h + 2 g, then 8 h + 2 g + 1):
//   sum(sc (u - 32) x) = madd(maddubs(u, x) - maddubs(32, x), sc),
// summed in integers over the super-block, then one multiply by d dx.
float dot_q6_k_q8k(const ggml::BlockQ6_K* w, const ggml::BlockQ8_K* x, std::int64_t n) {
  __m256 acc = _mm256_setzero_ps();
  const __m256i low = _mm256_set1_epi8(0x0F), two = _mm256_set1_epi8(3), k32 = _mm256_set1_epi8(32);
  for (std::int64_t b = 0; b < n / ggml::kQKK; ++b) {
    const ggml::BlockQ8_K& xb = x[b];
    const __m256i scales =
        _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w[b].scales)));
    __m256i isum = _mm256_setzero_si256();
    for (int h = 0; h < 2; ++h) {
      __m256i l0 = load256(w[b].ql + 64 * h), l1 = load256(w[b].ql + 64 * h + 32);
      __m256i hi = load256(w[b].qh + 32 * h);
      __m256i sh = scales_half(scales, h);
      __m256i u[4];
      u[0] = _mm256_and_si256(l0, low);
      u[1] = _mm256_and_si256(l1, low);
      u[2] = _mm256_and_si256(_mm256_srli_epi16(l0, 4), low);
      u[3] = _mm256_and_si256(_mm256_srli_epi16(l1, 4), low);
#pragma GCC unroll 4
      for (int g = 0; g < 4; ++g) {
        // 16-bit shifts: the masks keep each byte's own bits.
        __m256i top = _mm256_and_si256(_mm256_srli_epi16(hi, 2 * g), two);
        __m256i codes = _mm256_or_si256(u[g], _mm256_slli_epi16(top, 4));
        __m256i xv = load256(xb.qs + 128 * h + 32 * g);
        __m256i p =
            _mm256_sub_epi16(_mm256_maddubs_epi16(codes, xv), _mm256_maddubs_epi16(k32, xv));
        isum = _mm256_add_epi32(isum, _mm256_madd_epi16(p, pair_scales(sh, g)));
      }
    }
    acc = _mm256_fmadd_ps(_mm256_set1_ps(half(w[b].d) * xb.d), _mm256_cvtepi32_ps(isum), acc);
  }
  return hsum(acc);
}

// Q2_K, Q3_K and Q5_K on Q8_K activations: the Q8_0 kernels above with
// the integer products summed over the whole super-block (one float
// multiply-add per 256 values instead of one or two per 32), the mins and
// Q3_K's -4 offset from the block's 16-value bsums: ggml's integer sums
// (vec_dot_q2_K_q8_K, q3_K_q8_K, q5_K_q8_K).
float dot_q2_k_q8k(const ggml::BlockQ2_K* w, const ggml::BlockQ8_K* x, std::int64_t n) {
  __m256 acc = _mm256_setzero_ps();
  float mins = 0;
  const __m256i three = _mm256_set1_epi8(3);
  for (std::int64_t b = 0; b < n / ggml::kQKK; ++b) {
    const ggml::BlockQ8_K& xb = x[b];
    __m128i sm = _mm_loadu_si128(reinterpret_cast<const __m128i*>(w[b].scales));
    const __m256i scales = _mm256_cvtepu8_epi16(_mm_and_si128(sm, _mm_set1_epi8(0x0F)));
    const __m256i m =
        _mm256_cvtepu8_epi16(_mm_and_si128(_mm_srli_epi16(sm, 4), _mm_set1_epi8(0x0F)));
    __m256i isum = _mm256_setzero_si256();
    for (int h = 0; h < 2; ++h) {
      __m256i q = load256(w[b].qs + 32 * h);
      __m256i sh = scales_half(scales, h);
#pragma GCC unroll 4
      for (int s = 0; s < 4; ++s) {
        __m256i codes = _mm256_and_si256(_mm256_srli_epi16(q, 2 * s), three);
        __m256i xv = load256(xb.qs + 128 * h + 32 * s);
        isum = _mm256_add_epi32(
            isum, _mm256_madd_epi16(_mm256_maddubs_epi16(codes, xv), pair_scales(sh, s)));
      }
    }
    acc = _mm256_fmadd_ps(_mm256_set1_ps(half(w[b].d) * xb.d), _mm256_cvtepi32_ps(isum), acc);
    mins += half(w[b].dmin) * xb.d *
            static_cast<float>(hsum_i32(_mm256_madd_epi16(m, load256(xb.bsums))));
  }
  return hsum(acc) - mins;
}

float dot_q3_k_q8k(const ggml::BlockQ3_K* w, const ggml::BlockQ8_K* x, std::int64_t n) {
  __m256 acc = _mm256_setzero_ps();
  for (std::int64_t b = 0; b < n / ggml::kQKK; ++b) {
    const ggml::BlockQ8_K& xb = x[b];
    const __m256i scales = q3_k_scales(w[b].scales);
    __m256i hm = load256(w[b].hmask);
    // -4 sum_j sc_j bsums_j: the codes below are q + 4 in 0..7.
    __m256i isum = _mm256_sub_epi32(
        _mm256_setzero_si256(), _mm256_slli_epi32(_mm256_madd_epi16(scales, load256(xb.bsums)), 2));
    for (int h = 0; h < 2; ++h) {
      __m256i q = load256(w[b].qs + 32 * h);
      __m256i sh = scales_half(scales, h);
#pragma GCC unroll 4
      for (int s = 0; s < 4; ++s) {
        const __m256i codes = q3_k_codes(q, hm, 4 * h + s, s);
        __m256i xv = load256(xb.qs + 128 * h + 32 * s);
        isum = _mm256_add_epi32(
            isum, _mm256_madd_epi16(_mm256_maddubs_epi16(codes, xv), pair_scales(sh, s)));
      }
    }
    acc = _mm256_fmadd_ps(_mm256_set1_ps(half(w[b].d) * xb.d), _mm256_cvtepi32_ps(isum), acc);
  }
  return hsum(acc);
}

float dot_q5_k_q8k(const ggml::BlockQ5_K* w, const ggml::BlockQ8_K* x, std::int64_t n) {
  __m256 acc = _mm256_setzero_ps();
  float mins = 0;
  const __m256i low = _mm256_set1_epi8(0x0F), ones = _mm256_set1_epi8(1);
  for (std::int64_t b = 0; b < n / ggml::kQKK; ++b) {
    const ggml::BlockQ8_K& xb = x[b];
    __m256i qh = load256(w[b].qh);
    __m256i isum = _mm256_setzero_si256();
    int msum = 0;
#pragma GCC unroll 4
    for (int k = 0; k < ggml::kQKK / 64; ++k) {
      __m256i q = load256(w[b].qs + 32 * k);
      for (int h = 0; h < 2; ++h) {
        std::uint8_t sc, m;
        ggml::scale_min_k4(2 * k + h, w[b].scales, sc, m);
        msum += m * (xb.bsums[4 * k + 2 * h] + xb.bsums[4 * k + 2 * h + 1]);
        // 16-bit shifts: the mask keeps each byte's own bit.
        __m256i nib =
            h == 0 ? _mm256_and_si256(q, low) : _mm256_and_si256(_mm256_srli_epi16(q, 4), low);
        __m256i bit = _mm256_and_si256(_mm256_srli_epi16(qh, 2 * k + h), ones);
        __m256i codes = _mm256_or_si256(nib, _mm256_slli_epi16(bit, 4));
        __m256i xv = load256(xb.qs + 64 * k + 32 * h);
        isum = _mm256_add_epi32(
            isum, _mm256_madd_epi16(_mm256_maddubs_epi16(codes, xv), _mm256_set1_epi16(sc)));
      }
    }
    acc = _mm256_fmadd_ps(_mm256_set1_ps(half(w[b].d) * xb.d), _mm256_cvtepi32_ps(isum), acc);
    mins += half(w[b].dmin) * xb.d * static_cast<float>(msum);
  }
  return hsum(acc) - mins;
}

}  // namespace tok::model::avx2

#endif
