// AVX2 + FMA kernels for the weight types of GGUF "_M" / "_S" mixes beside
// Q4_K / Q6_K / Q8_0: Q4_1, Q5_0, Q5_1 as integer dots with Q8_0
// activations (llama.cpp's approach, and what keeps greedy ids on
// llama.cpp's), Q2_K, Q3_K, Q5_K dequantized a super-block at a time in
// registers and multiplied with the float activations (as dot_q4_k does).
// Compiled with -mavx2 -mfma -mf16c (src/CMakeLists.txt); kernels_avx2.cpp
// puts them in its table, which the AVX-512 set copies.
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
  const __m256i spread = _mm256_set_epi64x(0x0303030303030303, 0x0202020202020202, 0x0101010101010101, 0);
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
float dot_with_min(const Block* w, const BlockQ8_0* x, std::int64_t n) {
  __m256 acc[2] = {_mm256_setzero_ps(), _mm256_setzero_ps()};
  __m256 mins[2] = {_mm256_setzero_ps(), _mm256_setzero_ps()};
  const __m256i ones = _mm256_set1_epi8(1);
  std::int64_t nb = n / kQK;
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

__m256i q4_1_codes(const BlockQ4_1& b) { return nibbles(b.qs); }
__m256i q5_1_codes(const BlockQ5_1& b) {
  return _mm256_or_si256(nibbles(b.qs), _mm256_and_si256(bit_bytes(b.qh), _mm256_set1_epi8(0x10)));
}

}  // namespace

float dot_q4_1(const BlockQ4_1* w, const BlockQ8_0* x, std::int64_t n) {
  return dot_with_min<BlockQ4_1, q4_1_codes>(w, x, n);
}
float dot_q5_1(const BlockQ5_1* w, const BlockQ8_0* x, std::int64_t n) {
  return dot_with_min<BlockQ5_1, q5_1_codes>(w, x, n);
}

// Q5_0: q - 16 as a signed byte is the nibble with 0xF0 or'ed in where the
// 5th bit is clear (ggml's trick); then dot_i8's sign trick, as Q4_0.
float dot_q5_0(const BlockQ5_0* w, const BlockQ8_0* x, std::int64_t n) {
  __m256 acc[2] = {_mm256_setzero_ps(), _mm256_setzero_ps()};
  const __m256i high = _mm256_set1_epi8(static_cast<char>(0xF0));
  for (std::int64_t b = 0; b < n / kQK; ++b) {
    __m256i v = _mm256_or_si256(nibbles(w[b].qs), _mm256_andnot_si256(bit_bytes(w[b].qh), high));
    __m256 p = dot_i8(_mm256_sign_epi8(v, v), v, load256(x[b].qs));
    acc[b & 1] = _mm256_fmadd_ps(_mm256_set1_ps(half(w[b].d) * half(x[b].d)), p, acc[b & 1]);
  }
  return hsum(_mm256_add_ps(acc[0], acc[1]));
}

// Q5_K: as dot_q4_k, with the 5th bit of element 64 k + l (l < 32) at bit
// 2k of qh[l] and of element 64 k + 32 + l at bit 2k + 1.
float dot_q5_k(const BlockQ5_K* w, const float* x, std::int64_t n) {
  __m256 acc0 = _mm256_setzero_ps(), acc1 = acc0;
  const __m256i low = _mm256_set1_epi32(0x0F), bit4 = _mm256_set1_epi32(0x10);
  for (std::int64_t b = 0; b < n / kQKK; ++b, x += kQKK) {
    float d = half(w[b].d), dmin = half(w[b].dmin);
    const std::uint8_t* q = w[b].qs;
    for (int k = 0; k < kQKK / 64; ++k, q += 32) {
      std::uint8_t sc[2], m[2];
      for (int h = 0; h < 2; ++h) scale_min_k4(2 * k + h, w[b].scales, sc[h], m[h]);
      __m256 d1 = _mm256_set1_ps(d * sc[0]), m1 = _mm256_set1_ps(dmin * m[0]);
      __m256 d2 = _mm256_set1_ps(d * sc[1]), m2 = _mm256_set1_ps(dmin * m[1]);
      const float* xs = x + 64 * k;
      for (int l = 0; l < 32; l += 8) {
        __m256i v = bytes8(q + l);
        // bit 2k of qh moved to bit 4, and bit 2k + 1 (one step further up).
        __m256i h = bytes8(w[b].qh + l);
        __m256i h1 = _mm256_and_si256(k < 2 ? _mm256_slli_epi32(h, 4 - 2 * k) : _mm256_srli_epi32(h, 2 * k - 4), bit4);
        __m256i h2 = _mm256_and_si256(k < 2 ? _mm256_slli_epi32(h, 3 - 2 * k) : _mm256_srli_epi32(h, 2 * k - 3), bit4);
        __m256 lo = _mm256_cvtepi32_ps(_mm256_or_si256(_mm256_and_si256(v, low), h1));
        __m256 hi = _mm256_cvtepi32_ps(_mm256_or_si256(_mm256_srli_epi32(v, 4), h2));
        acc0 = _mm256_fmadd_ps(_mm256_fmsub_ps(d1, lo, m1), _mm256_loadu_ps(xs + l), acc0);
        acc1 = _mm256_fmadd_ps(_mm256_fmsub_ps(d2, hi, m2), _mm256_loadu_ps(xs + 32 + l), acc1);
      }
    }
  }
  return hsum(_mm256_add_ps(acc0, acc1));
}

// Q3_K: in each half (128 elements) of a super-block, element 32 s + l
// (l < 32) is bits 2s..2s+1 of qs[l], with the high bit 4 h + s of hmask[l]
// (clear: minus 4), times d and the signed scale of its 16 elements:
//   d sc (q + 4 hb - 4) = (d sc) (q | hb << 2) - 4 d sc.
float dot_q3_k(const BlockQ3_K* w, const float* x, std::int64_t n) {
  __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
  const __m256i three = _mm256_set1_epi32(3), four = _mm256_set1_epi32(4);
  for (std::int64_t b = 0; b < n / kQKK; ++b) {
    float d = half(w[b].d);
    int sc[16];
    ggml::q3_k_scales(w[b].scales, sc);
    for (int h = 0; h < 2; ++h) {
      const std::uint8_t* q = w[b].qs + 32 * h;
      const float* xs = x + b * kQKK + 128 * h;
      for (int l = 0; l < 32; l += 8) {
        __m256i qv = bytes8(q + l), hv = bytes8(w[b].hmask + l);
        for (int s = 0; s < 4; ++s) {
          int bit = 4 * h + s;  // moved to bit 2
          __m256i hb = _mm256_and_si256(bit < 2 ? _mm256_slli_epi32(hv, 2 - bit) : _mm256_srli_epi32(hv, bit - 2), four);
          __m256i v = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi32(qv, 2 * s), three), hb);
          float dl = d * static_cast<float>(sc[8 * h + 2 * s + l / 16]);
          __m256 wv = _mm256_fmsub_ps(_mm256_set1_ps(dl), _mm256_cvtepi32_ps(v), _mm256_set1_ps(4 * dl));
          acc[s] = _mm256_fmadd_ps(wv, _mm256_loadu_ps(xs + 32 * s + l), acc[s]);
        }
      }
    }
  }
  return hsum(_mm256_add_ps(_mm256_add_ps(acc[0], acc[1]), _mm256_add_ps(acc[2], acc[3])));
}

// Q2_K: the layout of Q3_K without the high bits; each 16 elements have a
// 4-bit scale and a 4-bit minimum: d sc q - dmin m.
float dot_q2_k(const BlockQ2_K* w, const float* x, std::int64_t n) {
  __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
  const __m256i three = _mm256_set1_epi32(3);
  for (std::int64_t b = 0; b < n / kQKK; ++b) {
    float d = half(w[b].d), dmin = half(w[b].dmin);
    for (int h = 0; h < 2; ++h) {
      const std::uint8_t* q = w[b].qs + 32 * h;
      const float* xs = x + b * kQKK + 128 * h;
      for (int l = 0; l < 32; l += 8) {
        __m256i qv = bytes8(q + l);
        for (int s = 0; s < 4; ++s) {
          std::uint8_t sm = w[b].scales[8 * h + 2 * s + l / 16];
          __m256 v = _mm256_cvtepi32_ps(_mm256_and_si256(_mm256_srli_epi32(qv, 2 * s), three));
          __m256 wv = _mm256_fmsub_ps(_mm256_set1_ps(d * static_cast<float>(sm & 0xF)), v,
                                      _mm256_set1_ps(dmin * static_cast<float>(sm >> 4)));
          acc[s] = _mm256_fmadd_ps(wv, _mm256_loadu_ps(xs + 32 * s + l), acc[s]);
        }
      }
    }
  }
  return hsum(_mm256_add_ps(_mm256_add_ps(acc[0], acc[1]), _mm256_add_ps(acc[2], acc[3])));
}

}  // namespace tok::model::avx2

#endif
