// Q4_K weights times several tokens (prefill) with AVX-512 VNNI byte dots:
// sixteen rows at a time, one row per 32-bit lane, so one vpdpbusd (unsigned
// nibbles times signed q8_K activations) adds 4 products into each of 16
// rows' sums, 64 products per instruction, where the int16 tiles of
// kernels_avx512_gemm_k.cpp add 32 (vpdpwssd) and read their weights as
// int16, four times the nibbles' bytes.
//
// Packing. A Q4_K block stores value 64j + l (l < 32) in the low nibble of
// qs[32j + l] and value 64j + 32 + l in its high nibble, so the dword
// qs[32j + 4k .. 32j + 4k + 3] holds values 64j + 4k .. + 3 in its low
// nibbles and 32 later in its high ones: already the byte order vpdpbusd
// pairs with a broadcast dword of 4 consecutive activations. Packing is
// therefore a transpose only: for each super-block, chunk q (0..31) is
// dword q of the 16 rows' qs, one 64-byte vector (two 16 x 16 dword
// transposes in registers: with gathers, packing took 6x as long). Beside the
// chunks, each sub-block's scale d * sc and min dmin * m as 16 floats (one
// per row), unpacked once from the 12-byte 6-bit form. A block of rows is
// packed once per product and serves every token of the batch.
//
// Tile. For RN tokens: per sub-block, 8 chunk loads masked (or shifted) to
// nibbles, 8 * RN vpdpbusd on the activations broadcast from memory, then
// per token one convert and one multiply-add by the rows' scales, and one
// multiply-add of the rows' mins by the token's sub-block sum; per
// super-block one multiply-add by the token's scale. Each lane's integer
// sums are ggml's (ggml_vec_dot_q4_K_q8_K), exact in int32; the float steps
// are in a different order.
//
// Compiled with -mavx512f -mavx512bw -mavx512vl -mavx512vnni
// (src/CMakeLists.txt); called from kernels_avx512_gemm_k.cpp.
#include "model/act_q8_k.hpp"
#include "model/isa_vector.hpp"
#include "model/kernels.hpp"

#if defined(__x86_64__) || defined(__i386__)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC bug 105593, as in kernels_avx512.cpp
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>

#include <algorithm>
#include <cstring>

namespace tok::model {
namespace {

#define TOK_UNROLL _Pragma("GCC unroll 16")

constexpr std::int64_t kRows = 16;   // rows per group: the 16 lanes of a vector
constexpr std::int64_t kChunks = 32;  // 64-byte chunks of nibbles per super-block and group
constexpr std::int64_t kSubs = 8;     // 32-value sub-blocks per super-block
// Per group and super-block: the chunks, then kSubs x 16 scales, kSubs x 16 mins.
constexpr std::size_t kScalesAt = kChunks * 64;
constexpr std::size_t kPackedBytes = kScalesAt + 2 * kSubs * kRows * sizeof(float);  // 3 KiB
constexpr std::int64_t kBlockTokens = 48;
constexpr int kRn = 8;  // tokens per tile: 3 x 8 accumulators, a chunk and a mask of 32 registers

static_assert(sizeof(BlockQ4_K) == 144 && offsetof(BlockQ4_K, qs) == 16 && offsetof(BlockQ4_K, scales) == 4);

// Groups packed per block: as many as keep the packed rows within 192 KiB
// (in L2 beside the activations), 1 to 8 of them.
std::int64_t block_groups(std::int64_t nb) {
  return std::clamp<std::int64_t>((192 << 10) / (nb * static_cast<std::int64_t>(kPackedBytes)), 1, 8);
}

// The 16 x 16 dwords of r[0..15] transposed in place: r[c] gets dword c
// of every r[i], in lane i.
inline void transpose16(__m512i* r) {
  __m512i t[16];
  TOK_UNROLL
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
  }
  // Per 128-bit lane L, r[4i + k] then holds dword 4L + k of rows 4i..4i+3.
  TOK_UNROLL
  for (int i = 0; i < 4; ++i) {
    r[4 * i] = _mm512_unpacklo_epi64(t[4 * i], t[4 * i + 2]);
    r[4 * i + 1] = _mm512_unpackhi_epi64(t[4 * i], t[4 * i + 2]);
    r[4 * i + 2] = _mm512_unpacklo_epi64(t[4 * i + 1], t[4 * i + 3]);
    r[4 * i + 3] = _mm512_unpackhi_epi64(t[4 * i + 1], t[4 * i + 3]);
  }
  TOK_UNROLL
  for (int k = 0; k < 4; ++k) {
    __m512i u0 = _mm512_shuffle_i32x4(r[k], r[4 + k], 0x88), u1 = _mm512_shuffle_i32x4(r[k], r[4 + k], 0xDD);
    __m512i v0 = _mm512_shuffle_i32x4(r[8 + k], r[12 + k], 0x88), v1 = _mm512_shuffle_i32x4(r[8 + k], r[12 + k], 0xDD);
    t[k] = _mm512_shuffle_i32x4(u0, v0, 0x88);
    t[8 + k] = _mm512_shuffle_i32x4(u0, v0, 0xDD);
    t[4 + k] = _mm512_shuffle_i32x4(u1, v1, 0x88);
    t[12 + k] = _mm512_shuffle_i32x4(u1, v1, 0xDD);
  }
  TOK_UNROLL
  for (int c = 0; c < 16; ++c) r[c] = t[c];
}

// Dwords 0..3 of the 16 rows at p[0..15] (16 bytes each): out[k] = dword k,
// row i in lane i. Four rows to a vector, a 4 x 4 transpose within each
// 128-bit lane (rows L, 4 + L, 8 + L, 12 + L in lane L), then one permute.
inline void transpose16x4(const std::uint8_t* const* p, __m512i* out) {
  __m512i v[4];
  TOK_UNROLL
  for (int a = 0; a < 4; ++a) {
    const auto* q = reinterpret_cast<const __m128i*>(p[4 * a]);
    __m512i x = _mm512_castsi128_si512(_mm_loadu_si128(q));
    x = _mm512_inserti32x4(x, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p[4 * a + 1])), 1);
    x = _mm512_inserti32x4(x, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p[4 * a + 2])), 2);
    v[a] = _mm512_inserti32x4(x, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p[4 * a + 3])), 3);
  }
  __m512i t0 = _mm512_unpacklo_epi32(v[0], v[1]), t1 = _mm512_unpackhi_epi32(v[0], v[1]);
  __m512i t2 = _mm512_unpacklo_epi32(v[2], v[3]), t3 = _mm512_unpackhi_epi32(v[2], v[3]);
  // Lane L of s[k]: dword k of rows L, 4 + L, 8 + L, 12 + L; row m sits at 4 (m % 4) + m / 4.
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  out[0] = _mm512_permutexvar_epi32(order, _mm512_unpacklo_epi64(t0, t2));
  out[1] = _mm512_permutexvar_epi32(order, _mm512_unpackhi_epi64(t0, t2));
  out[2] = _mm512_permutexvar_epi32(order, _mm512_unpacklo_epi64(t1, t3));
  out[3] = _mm512_permutexvar_epi32(order, _mm512_unpackhi_epi64(t1, t3));
}

// Rows [r, r + 16) of w packed as described above into out (nb * kPackedBytes).
void pack_group(const TensorView& w, std::int64_t r, std::uint8_t* out) {
  const std::int64_t nb = w.cols / kQKK;
  const std::uint8_t* rows[kRows];
  TOK_UNROLL
  for (int i = 0; i < kRows; ++i) rows[i] = static_cast<const std::uint8_t*>(w.row(r + i));
  const __m512i m6 = _mm512_set1_epi32(63), m4 = _mm512_set1_epi32(15), m2 = _mm512_set1_epi32(3);
  for (std::int64_t s = 0; s < nb; ++s, out += kPackedBytes) {
    const std::uint8_t* b[kRows];
    TOK_UNROLL
    for (int i = 0; i < kRows; ++i) b[i] = rows[i] + s * sizeof(BlockQ4_K);
    for (int h = 0; h < 2; ++h) {  // qs dwords 16h .. 16h + 15
      __m512i v[kRows];
      TOK_UNROLL
      for (int i = 0; i < kRows; ++i) v[i] = _mm512_loadu_si512(b[i] + 16 + 64 * h);
      transpose16(v);
      TOK_UNROLL
      for (int c = 0; c < 16; ++c) _mm512_storeu_si512(out + 64 * (16 * h + c), v[c]);
    }
    __m512i head[4];  // d | dmin << 16, scales[0..3], scales[4..7], scales[8..11]
    transpose16x4(b, head);
    const __m512i dd = head[0], u0 = head[1], u1 = head[2], u2 = head[3];
    const __m512 d = _mm512_cvtph_ps(_mm512_cvtepi32_epi16(dd));
    const __m512 dmin = _mm512_cvtph_ps(_mm512_cvtepi32_epi16(_mm512_srli_epi32(dd, 16)));
    auto* scales = reinterpret_cast<float*>(out + kScalesAt);
    auto* mins = scales + kSubs * kRows;
    // ggml's get_scale_min_k4 on 16 rows at once.
    TOK_UNROLL
    for (int j = 0; j < 4; ++j) {
      const __m512i sc = _mm512_and_si512(_mm512_srli_epi32(u0, 8 * j), m6);
      const __m512i m = _mm512_and_si512(_mm512_srli_epi32(u1, 8 * j), m6);
      const __m512i sc_hi = _mm512_or_si512(
          _mm512_and_si512(_mm512_srli_epi32(u2, 8 * j), m4),
          _mm512_slli_epi32(_mm512_and_si512(_mm512_srli_epi32(u0, 8 * j + 6), m2), 4));
      const __m512i m_hi = _mm512_or_si512(
          _mm512_and_si512(_mm512_srli_epi32(u2, 8 * j + 4), m4),
          _mm512_slli_epi32(_mm512_and_si512(_mm512_srli_epi32(u1, 8 * j + 6), m2), 4));
      _mm512_storeu_ps(scales + kRows * j, _mm512_mul_ps(d, _mm512_cvtepi32_ps(sc)));
      _mm512_storeu_ps(mins + kRows * j, _mm512_mul_ps(dmin, _mm512_cvtepi32_ps(m)));
      _mm512_storeu_ps(scales + kRows * (j + 4), _mm512_mul_ps(d, _mm512_cvtepi32_ps(sc_hi)));
      _mm512_storeu_ps(mins + kRows * (j + 4), _mm512_mul_ps(dmin, _mm512_cvtepi32_ps(m_hi)));
    }
  }
}

inline __m512i bcast(const std::int8_t* p) {
  std::int32_t v;
  std::memcpy(&v, p, sizeof v);
  return _mm512_set1_epi32(v);
}

// One sub-block of RN tokens: the int32 sums of 16 rows' nibbles (low
// nibbles of the chunks at p if HI is false, high ones if true) with the
// 32 activations at x[j] + c.
template <int RN, bool HI>
inline void sub_block(const std::uint8_t* p, const std::int8_t* const* x, std::int64_t c, __m512i* isum) {
  const __m512i low4 = _mm512_set1_epi8(0x0F);
  TOK_UNROLL
  for (int j = 0; j < RN; ++j) isum[j] = _mm512_setzero_si512();
  TOK_UNROLL
  for (int k = 0; k < 8; ++k) {
    __m512i v = _mm512_loadu_si512(p + 64 * k);
    if constexpr (HI) v = _mm512_srli_epi16(v, 4);
    v = _mm512_and_si512(v, low4);
    TOK_UNROLL
    for (int j = 0; j < RN; ++j) isum[j] = _mm512_dpbusd_epi32(isum[j], v, bcast(x[j] + c + 4 * k));
  }
}

// y[j * ldy + m] = (row m of the packed group g) . (token t + j), m < 16, j < RN.
template <int RN>
void tile(const std::uint8_t* g, std::int64_t nb, const ActQ8K& x, std::int64_t t, float* y, std::int64_t ldy) {
  const std::int64_t cols = nb * kQKK;
  const std::int8_t* xq[RN];
  const float* xd[RN];
  const float* xs[RN];
  TOK_UNROLL
  for (int j = 0; j < RN; ++j) {
    xq[j] = x.q8.data() + (t + j) * cols;
    xd[j] = x.d.data() + (t + j) * nb;
    xs[j] = x.sums.data() + (t + j) * (cols / kQK);
  }
  __m512 acc[RN];
  TOK_UNROLL
  for (int j = 0; j < RN; ++j) acc[j] = _mm512_setzero_ps();
  for (std::int64_t s = 0; s < nb; ++s, g += kPackedBytes) {
    const auto* scales = reinterpret_cast<const float*>(g + kScalesAt);
    const float* mins = scales + kSubs * kRows;
    __m512 part[RN];
    TOK_UNROLL
    for (int j = 0; j < RN; ++j) part[j] = _mm512_setzero_ps();
    for (int h = 0; h < 4; ++h) {  // sub-blocks 2h (low nibbles) and 2h + 1 (high)
      TOK_UNROLL
      for (int hi = 0; hi < 2; ++hi) {
        const int sub = 2 * h + hi;
        __m512i isum[RN];
        if (hi) {
          sub_block<RN, true>(g + 64 * 8 * h, xq, s * kQKK + 64 * h + 32, isum);
        } else {
          sub_block<RN, false>(g + 64 * 8 * h, xq, s * kQKK + 64 * h, isum);
        }
        const __m512 sc = _mm512_loadu_ps(scales + kRows * sub), mn = _mm512_loadu_ps(mins + kRows * sub);
        TOK_UNROLL
        for (int j = 0; j < RN; ++j) {
          part[j] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(isum[j]), sc, part[j]);
          acc[j] = _mm512_fnmadd_ps(mn, _mm512_set1_ps(xs[j][s * kSubs + sub]), acc[j]);
        }
      }
    }
    TOK_UNROLL
    for (int j = 0; j < RN; ++j) acc[j] = _mm512_fmadd_ps(part[j], _mm512_set1_ps(xd[j][s]), acc[j]);
  }
  TOK_UNROLL
  for (int j = 0; j < RN; ++j) _mm512_storeu_ps(y + j * ldy, acc[j]);
}

// Tokens [t0, t1) times one packed group; y at the group's first row.
void group_tokens(const std::uint8_t* g, std::int64_t nb, const ActQ8K& x, std::int64_t t0, std::int64_t t1, float* y,
                  std::int64_t ldy) {
  std::int64_t t = t0;
  for (; t + kRn <= t1; t += kRn) tile<kRn>(g, nb, x, t, y + t * ldy, ldy);
  if (t + 4 <= t1) tile<4>(g, nb, x, t, y + t * ldy, ldy), t += 4;
  if (t + 2 <= t1) tile<2>(g, nb, x, t, y + t * ldy, ldy), t += 2;
  if (t < t1) tile<1>(g, nb, x, t, y + t * ldy, ldy);
}

}  // namespace

// Rows [r0, r1) of a Q4_K matrix, (r1 - r0) a multiple of 16, times the
// batch in x (q8_K, with its bytes in x.q8); y at row 0's column.
void gemm_q4_k_x16_avx512(const TensorView& w, std::int64_t r0, std::int64_t r1, const ActQ8K& x, float* y,
                          std::int64_t ldy) {
  const std::int64_t nb = w.cols / kQKK, per_block = block_groups(nb);
  // Kept by the thread between products: a fresh 100-200 KiB buffer per
  // product was zeroed, and often faulted in page by page.
  thread_local IsaVector<std::uint8_t> packed;
  if (packed.size() < static_cast<std::size_t>(per_block * nb) * kPackedBytes) {
    packed.resize(static_cast<std::size_t>(per_block * nb) * kPackedBytes);
  }
  for (std::int64_t r = r0; r < r1; r += per_block * kRows) {
    const std::int64_t groups = std::min(per_block, (r1 - r) / kRows);
    for (std::int64_t g = 0; g < groups; ++g) {
      pack_group(w, r + g * kRows, packed.data() + static_cast<std::size_t>(g * nb) * kPackedBytes);
    }
    for (std::int64_t t = 0; t < x.n; t += kBlockTokens) {
      for (std::int64_t g = 0; g < groups; ++g) {
        group_tokens(packed.data() + static_cast<std::size_t>(g * nb) * kPackedBytes, nb, x, t,
                     std::min(x.n, t + kBlockTokens), y + r + g * kRows, ldy);
      }
    }
  }
}

}  // namespace tok::model

#else
namespace tok::model {
void gemm_q4_k_x16_avx512(const TensorView&, std::int64_t, std::int64_t, const ActQ8K&, float*, std::int64_t) {}
}  // namespace tok::model
#endif
