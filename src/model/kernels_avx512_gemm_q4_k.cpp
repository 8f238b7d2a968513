// Q4_K weights with AVX-512 VNNI byte dots, sixteen rows at a time, one row per 32-bit lane, so one
// vpdpbusd (unsigned nibbles times signed q8_K activations) adds 4 products into each of 16 rows'
// sums, 64 products per instruction, where the int16 tiles of kernels_avx512_gemm_k.cpp add 32
// (vpdpwssd) and read their weights as int16, four times the nibbles' bytes.
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
// packed once per product and serves every token of the batch. Matrices
// repacked at load (Q4_Kx16, model/repack.hpp) already hold the chunks:
// only their scales are unpacked.
//
// Tile. For RN tokens: per sub-block, 8 chunk loads masked (or shifted) to
// nibbles, 8 * RN vpdpbusd on the activations broadcast from memory, then
// per token one convert and one multiply-add by the rows' scales, and one
// multiply-add of the rows' mins by the token's sub-block sum; per
// super-block one multiply-add by the token's scale. Each lane's integer
// sums are ggml's (ggml_vec_dot_q4_K_q8_K), exact in int32; the float steps
// are in a different order.
//
// Decode (Q4_Kx16 only: one token reads each row once, not worth a pack):
// group_q8k, the same byte dots on Q8_K blocks, with the sub-block scales
// and mins applied as ggml does, in integers per super-block.
//
// Compiled with -mavx512f -mavx512bw -mavx512vl -mavx512vnni
// (src/CMakeLists.txt); called from kernels_avx512_gemm_k.cpp (plain rows)
// and kernels_avx512.cpp (Q4_Kx16).
#include "model/act_q8_k.hpp"
#include "model/isa_vector.hpp"
#include "model/kernels.hpp"
#include "model/kernels_avx512_vbmi.hpp"
#include "model/repack.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include "model/avx512_prelude.hpp"

#include <algorithm>
#include <cstring>

namespace tok::model {
namespace {

constexpr std::int64_t kRows = 16;    // rows per group: the 16 lanes of a vector
constexpr std::int64_t kChunks = 32;  // 64-byte chunks of nibbles per super-block and group
constexpr std::int64_t kSubs = 8;     // 32-value sub-blocks per super-block
// Per group and super-block: the chunks, then kSubs x 16 scales, kSubs x 16 mins.
constexpr std::size_t kScalesAt = kChunks * 64;
constexpr std::size_t kPackedBytes = kScalesAt + 2 * kSubs * kRows * sizeof(float);  // 3 KiB
// Q5_K, packed for the same tiles: its 5-bit values as bytes, 8 chunks per
// sub-block (the 5th bit or'ed into the nibble at pack time), then the
// scales and mins as for Q4_K.
constexpr std::size_t kScalesAt5 = 2 * kChunks * 64;
constexpr std::size_t kPackedBytes5 = kScalesAt5 + 2 * kSubs * kRows * sizeof(float);  // 5 KiB
template <bool Q5>
constexpr std::size_t packed_bytes() {
  return Q5 ? kPackedBytes5 : kPackedBytes;
}
constexpr std::int64_t kBlockTokens = 48;
constexpr int kRn = 8;  // tokens per tile: 3 x 8 accumulators, a chunk and a mask of 32 registers

static_assert(sizeof(ggml::BlockQ4_K) == 144 && offsetof(ggml::BlockQ4_K, qs) == 16 &&
              offsetof(ggml::BlockQ4_K, scales) == 4);

// Groups packed per block: as many as keep the packed rows within 192 KiB
// (in L2 beside the activations), 1 to 8 of them.
std::int64_t block_groups(std::int64_t nb, std::size_t unit_bytes = kPackedBytes) {
  return std::clamp<std::int64_t>((192 << 10) / (nb * static_cast<std::int64_t>(unit_bytes)), 1, 8);
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
    __m512i u0 = _mm512_shuffle_i32x4(r[k], r[4 + k], 0x88),
            u1 = _mm512_shuffle_i32x4(r[k], r[4 + k], 0xDD);
    __m512i v0 = _mm512_shuffle_i32x4(r[8 + k], r[12 + k], 0x88),
            v1 = _mm512_shuffle_i32x4(r[8 + k], r[12 + k], 0xDD);
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
    v[a] =
        _mm512_inserti32x4(x, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p[4 * a + 3])), 3);
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

// ggml's get_scale_min_k4 on 16 rows at once: sub-block j's scale (6 bits)
// and min of each lane's row, from the 12 packed bytes as three dwords
// u0..u2 (the scale needs u0 and u2, the min u1 and u2).
inline __m512i sub_scale(int j, __m512i u0, __m512i u2) {
  const __m512i m6 = _mm512_set1_epi32(63), m4 = _mm512_set1_epi32(15), m2 = _mm512_set1_epi32(3);
  if (j < 4) return _mm512_and_si512(_mm512_srli_epi32(u0, 8 * j), m6);
  j -= 4;
  return _mm512_or_si512(
      _mm512_and_si512(_mm512_srli_epi32(u2, 8 * j), m4),
      _mm512_slli_epi32(_mm512_and_si512(_mm512_srli_epi32(u0, 8 * j + 6), m2), 4));
}
inline __m512i sub_min(int j, __m512i u1, __m512i u2) {
  const __m512i m6 = _mm512_set1_epi32(63), m4 = _mm512_set1_epi32(15), m2 = _mm512_set1_epi32(3);
  if (j < 4) return _mm512_and_si512(_mm512_srli_epi32(u1, 8 * j), m6);
  j -= 4;
  return _mm512_or_si512(
      _mm512_and_si512(_mm512_srli_epi32(u2, 8 * j + 4), m4),
      _mm512_slli_epi32(_mm512_and_si512(_mm512_srli_epi32(u1, 8 * j + 6), m2), 4));
}
inline __m512 fp16_lo(__m512i v) { return _mm512_cvtph_ps(_mm512_cvtepi32_epi16(v)); }
inline __m512 fp16_hi(__m512i v) {
  return _mm512_cvtph_ps(_mm512_cvtepi32_epi16(_mm512_srli_epi32(v, 16)));
}

// A super-block's d * sc and dmin * m of 16 rows as floats, into a packed
// unit's scales and mins (dd: d | dmin << 16; u0..u2: the packed scales).
inline void unpack_scales(__m512i dd, __m512i u0, __m512i u1, __m512i u2, std::uint8_t* out,
                          std::size_t scales_at = kScalesAt) {
  const __m512 d = fp16_lo(dd), dmin = fp16_hi(dd);
  auto* scales = reinterpret_cast<float*>(out + scales_at);
  auto* mins = scales + kSubs * kRows;
  TOK_UNROLL
  for (int j = 0; j < kSubs; ++j) {
    _mm512_storeu_ps(scales + kRows * j,
                     _mm512_mul_ps(d, _mm512_cvtepi32_ps(sub_scale(j, u0, u2))));
    _mm512_storeu_ps(mins + kRows * j, _mm512_mul_ps(dmin, _mm512_cvtepi32_ps(sub_min(j, u1, u2))));
  }
}

// Rows [r, r + 16) of w packed as described above into out (nb * kPackedBytes).
void pack_group(const TensorView& w, std::int64_t r, std::uint8_t* out) {
  const std::int64_t nb = w.cols / ggml::kQKK;
  const std::uint8_t* rows[kRows];
  TOK_UNROLL
  for (int i = 0; i < kRows; ++i) rows[i] = static_cast<const std::uint8_t*>(w.row(r + i));
  for (std::int64_t s = 0; s < nb; ++s, out += kPackedBytes) {
    const std::uint8_t* b[kRows];
    TOK_UNROLL
    for (int i = 0; i < kRows; ++i) b[i] = rows[i] + s * sizeof(ggml::BlockQ4_K);
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
    unpack_scales(head[0], head[1], head[2], head[3], out);
  }
}

// Rows [r, r + 16) of a Q5_K matrix into out (nb * kPackedBytes5): as
// pack_group, with each row's qh (8 dwords: bit 2j of byte l is the 5th bit
// of value 64 j + l, bit 2j + 1 that of value 64 j + 32 + l) transposed the
// same way and or'ed in, sub-block sb's chunk k at 64 (8 sb + k).
void pack_group_q5(const TensorView& w, std::int64_t r, std::uint8_t* out) {
  static_assert(sizeof(ggml::BlockQ5_K) == 176 && offsetof(ggml::BlockQ5_K, qh) == 16 &&
                offsetof(ggml::BlockQ5_K, qs) == 48);
  const std::int64_t nb = w.cols / ggml::kQKK;
  const __m512i low4 = _mm512_set1_epi8(0x0F), bit4 = _mm512_set1_epi8(0x10);
  const std::uint8_t* rows[kRows];
  TOK_UNROLL
  for (int i = 0; i < kRows; ++i) rows[i] = static_cast<const std::uint8_t*>(w.row(r + i));
  for (std::int64_t s = 0; s < nb; ++s, out += kPackedBytes5) {
    const std::uint8_t* b[kRows];
    TOK_UNROLL
    for (int i = 0; i < kRows; ++i) b[i] = rows[i] + s * sizeof(ggml::BlockQ5_K);
    __m512i qh[kRows];  // the 8 qh dwords of each row in the low half; after the transpose, qh[k] =
                        // dword k
    TOK_UNROLL
    for (int i = 0; i < kRows; ++i) {
      qh[i] =
          _mm512_castsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b[i] + 16)));
    }
    transpose16(qh);
    for (int h = 0; h < 2; ++h) {  // qs dwords 16h .. 16h + 15: j = 2h, 2h + 1
      __m512i v[kRows];
      TOK_UNROLL
      for (int i = 0; i < kRows; ++i) v[i] = _mm512_loadu_si512(b[i] + 48 + 64 * h);
      transpose16(v);
      TOK_UNROLL
      for (int c = 0; c < 16; ++c) {
        const int j = 2 * h + c / 8,
                  k = c % 8;  // qs dword 8j + k: values 64 j + 4k .. and 32 later
        TOK_UNROLL
        for (int hi = 0; hi < 2; ++hi) {
          const int sb = 2 * j + hi;
          const __m512i nib = _mm512_and_si512(hi ? _mm512_srli_epi16(v[c], 4) : v[c], low4);
          // Bit sb of each byte to bit 4 (16-bit shifts: the mask keeps each byte's own bit).
          const __m512i top =
              sb <= 4 ? _mm512_slli_epi16(qh[k], 4 - sb) : _mm512_srli_epi16(qh[k], sb - 4);
          _mm512_storeu_si512(out + 64 * (8 * sb + k),
                              _mm512_or_si512(nib, _mm512_and_si512(top, bit4)));
        }
      }
    }
    __m512i head[4];
    transpose16x4(b, head);
    unpack_scales(head[0], head[1], head[2], head[3], out, kScalesAt5);
  }
}

// Rows [16 g, 16 g + 16) of a Q4_Kx16 view (model/repack.hpp) into out: the
// chunks are already in place, the scales are unpacked.
void pack_repacked_group(const TensorView& w, std::int64_t g, std::uint8_t* out) {
  const std::int64_t nb = w.cols / ggml::kQKK;
  const std::uint8_t* unit = static_cast<const std::uint8_t*>(w.data) +
                             static_cast<std::size_t>(g) * kRows * w.row_bytes();
  for (std::int64_t s = 0; s < nb; ++s, out += kPackedBytes, unit += kQ4Kx16UnitBytes) {
    std::memcpy(out, unit, kScalesAt);
    auto vec = [&](std::size_t at) { return _mm512_loadu_si512(unit + at); };
    unpack_scales(vec(kQ4Kx16DAt), vec(kQ4Kx16ScalesAt), vec(kQ4Kx16ScalesAt + 64),
                  vec(kQ4Kx16ScalesAt + 128), out);
  }
}

inline __m512i bcast(const std::int8_t* p) {
  std::int32_t v;
  std::memcpy(&v, p, sizeof v);
  return _mm512_set1_epi32(v);
}

// The chunks' values: low nibbles, high nibbles, or whole bytes (Q5_K).
enum class Chunk { kLow, kHigh, kBytes };

// One sub-block of RN tokens: the int32 sums of 16 rows' values in the 8
// chunks at p with the 32 activations at x[j] + c.
template <int RN, Chunk K>
inline void sub_block(const std::uint8_t* p, const std::int8_t* const* x, std::int64_t c,
                      __m512i* isum) {
  const __m512i low4 = _mm512_set1_epi8(0x0F);
  TOK_UNROLL
  for (int j = 0; j < RN; ++j) isum[j] = _mm512_setzero_si512();
  TOK_UNROLL
  for (int k = 0; k < 8; ++k) {
    __m512i v = _mm512_loadu_si512(p + 64 * k);
    if constexpr (K == Chunk::kHigh) v = _mm512_srli_epi16(v, 4);
    if constexpr (K != Chunk::kBytes) v = _mm512_and_si512(v, low4);
    TOK_UNROLL
    for (int j = 0; j < RN; ++j) isum[j] = _mm512_dpbusd_epi32(isum[j], v, bcast(x[j] + c + 4 * k));
  }
}

// y[j * ldy + m] = (row m of the packed group g) . (token t + j), m < 16, j < RN.
template <int RN, bool Q5>
void tile(const std::uint8_t* g, std::int64_t nb, const ActQ8K& x, std::int64_t t, float* y,
          std::int64_t ldy) {
  const std::int64_t cols = nb * ggml::kQKK;
  const std::int8_t* xq[RN];
  const float* xd[RN];
  const float* xs[RN];
  TOK_UNROLL
  for (int j = 0; j < RN; ++j) {
    xq[j] = x.q8.data() + (t + j) * cols;
    xd[j] = x.d.data() + (t + j) * nb;
    xs[j] = x.sums.data() + (t + j) * (cols / ggml::kQK);
  }
  __m512 acc[RN];
  TOK_UNROLL
  for (int j = 0; j < RN; ++j) acc[j] = _mm512_setzero_ps();
  for (std::int64_t s = 0; s < nb; ++s, g += packed_bytes<Q5>()) {
    const auto* scales = reinterpret_cast<const float*>(g + (Q5 ? kScalesAt5 : kScalesAt));
    const float* mins = scales + kSubs * kRows;
    __m512 part[RN];
    TOK_UNROLL
    for (int j = 0; j < RN; ++j) part[j] = _mm512_setzero_ps();
    for (int h = 0; h < 4; ++h) {  // sub-blocks 2h (low nibbles) and 2h + 1 (high)
      TOK_UNROLL
      for (int hi = 0; hi < 2; ++hi) {
        const int sub = 2 * h + hi;
        __m512i isum[RN];
        const std::int64_t c = s * ggml::kQKK + 64 * h + 32 * hi;
        if constexpr (Q5) {
          sub_block<RN, Chunk::kBytes>(g + 64 * 8 * sub, xq, c, isum);
        } else if (hi) {
          sub_block<RN, Chunk::kHigh>(g + 64 * 8 * h, xq, c, isum);
        } else {
          sub_block<RN, Chunk::kLow>(g + 64 * 8 * h, xq, c, isum);
        }
        const __m512 sc = _mm512_loadu_ps(scales + kRows * sub),
                     mn = _mm512_loadu_ps(mins + kRows * sub);
        TOK_UNROLL
        for (int j = 0; j < RN; ++j) {
          part[j] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(isum[j]), sc, part[j]);
          acc[j] = _mm512_fnmadd_ps(mn, _mm512_set1_ps(xs[j][s * kSubs + sub]), acc[j]);
        }
      }
    }
    TOK_UNROLL
    for (int j = 0; j < RN; ++j)
      acc[j] = _mm512_fmadd_ps(part[j], _mm512_set1_ps(xd[j][s]), acc[j]);
  }
  TOK_UNROLL
  for (int j = 0; j < RN; ++j) _mm512_storeu_ps(y + j * ldy, acc[j]);
}

// Tokens [t0, t1) times one packed group; y at the group's first row.
template <bool Q5 = false>
void group_tokens(const std::uint8_t* g, std::int64_t nb, const ActQ8K& x, std::int64_t t0,
                  std::int64_t t1, float* y, std::int64_t ldy) {
  std::int64_t t = t0;
  for (; t + kRn <= t1; t += kRn) tile<kRn, Q5>(g, nb, x, t, y + t * ldy, ldy);
  if (t + 4 <= t1) tile<4, Q5>(g, nb, x, t, y + t * ldy, ldy), t += 4;
  if (t + 2 <= t1) tile<2, Q5>(g, nb, x, t, y + t * ldy, ldy), t += 2;
  if (t < t1) tile<1, Q5>(g, nb, x, t, y + t * ldy, ldy);
}

// The thread's packing buffer, at least `bytes` long. Kept between products:
// a fresh 100-200 KiB buffer per product was zeroed, and often faulted in
// page by page.
std::uint8_t* scratch(std::size_t bytes) {
  thread_local IsaVector<std::uint8_t> packed;
  if (packed.size() < bytes) packed.resize(bytes);
  return packed.data();
}

// Groups [0, groups) of 16 rows times the batch x, group g's outputs at
// y + 16 g: packed a block of groups at a time by pack(g, out) (Q4_K's or
// Q5_K's packed units), then every token block through the tiles.
template <bool Q5, class Pack>
void packed_groups(std::int64_t nb, std::int64_t groups, Pack pack, const ActQ8K& x, float* y,
                   std::int64_t ldy) {
  constexpr std::size_t kUnit = packed_bytes<Q5>();
  const std::int64_t per_block = block_groups(nb, kUnit);
  std::uint8_t* packed = scratch(static_cast<std::size_t>(per_block * nb) * kUnit);
  auto at = [&](std::int64_t i) { return packed + static_cast<std::size_t>(i * nb) * kUnit; };
  for (std::int64_t g0 = 0; g0 < groups; g0 += per_block) {
    const std::int64_t m = std::min(per_block, groups - g0);
    for (std::int64_t i = 0; i < m; ++i) pack(g0 + i, at(i));
    for (std::int64_t t = 0; t < x.n; t += kBlockTokens) {
      for (std::int64_t i = 0; i < m; ++i) {
        group_tokens<Q5>(at(i), nb, x, t, std::min(x.n, t + kBlockTokens), y + (g0 + i) * kRows,
                         ldy);
      }
    }
  }
}

// One group of a Q4_Kx16 view (its units at u) times one token's Q8_K
// blocks x: the 16 rows' dot products in the lanes. As ggml's
// ggml_vec_dot_q4_K_q8_K: per super-block the integer sum over sub-blocks
// of scale times byte dot, and of min times the activations' sub-block sum,
// then one float multiply-add each by d dx and dmin dx. Prefetches
// kDecodePrefetchBytes ahead: decode reads the groups once, from memory, in
// order.
inline __m512 group_q8k(const std::uint8_t* u, std::int64_t nb, const ggml::BlockQ8_K* x) {
  const __m512i low4 = _mm512_set1_epi8(0x0F);
  __m512 acc = _mm512_setzero_ps();
  for (std::int64_t s = 0; s < nb; ++s, u += kQ4Kx16UnitBytes) {
    TOK_UNROLL
    for (std::size_t o = 0; o < kQ4Kx16UnitBytes; o += 64) {
      _mm_prefetch(reinterpret_cast<const char*>(u) + kDecodePrefetchBytes + o, _MM_HINT_T0);
    }
    const __m512i u0 = _mm512_loadu_si512(u + kQ4Kx16ScalesAt),
                  u1 = _mm512_loadu_si512(u + kQ4Kx16ScalesAt + 64);
    const __m512i u2 = _mm512_loadu_si512(u + kQ4Kx16ScalesAt + 128);
    const std::int8_t* xq = x[s].qs;
    __m512i isum = _mm512_setzero_si512(), msum = _mm512_setzero_si512();
    TOK_UNROLL
    for (int j = 0; j < kSubs;
         ++j) {  // sub-block j: low (j even) or high nibbles of chunks 8 (j / 2) ..
      __m512i t = _mm512_setzero_si512();
      TOK_UNROLL
      for (int k = 0; k < 8; ++k) {
        __m512i v = _mm512_loadu_si512(u + 64 * (8 * (j / 2) + k));
        if (j % 2) v = _mm512_srli_epi16(v, 4);
        t = _mm512_dpbusd_epi32(t, _mm512_and_si512(v, low4), bcast(xq + 32 * j + 4 * k));
      }
      isum = _mm512_add_epi32(isum, _mm512_mullo_epi32(t, sub_scale(j, u0, u2)));
      msum = _mm512_add_epi32(
          msum, _mm512_mullo_epi32(sub_min(j, u1, u2),
                                   _mm512_set1_epi32(x[s].bsums[2 * j] + x[s].bsums[2 * j + 1])));
    }
    const __m512i dd = _mm512_loadu_si512(u + kQ4Kx16DAt);
    const __m512 dx = _mm512_set1_ps(x[s].d);
    acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(isum), _mm512_mul_ps(fp16_lo(dd), dx), acc);
    acc = _mm512_fnmadd_ps(_mm512_cvtepi32_ps(msum), _mm512_mul_ps(fp16_hi(dd), dx), acc);
  }
  return acc;
}

}  // namespace

// Rows [r0, r1) of a Q4_K matrix, (r1 - r0) a multiple of 16, times the
// batch in x (q8_K, with its bytes in x.q8); y at row 0's column.
void gemm_q4_k_x16_avx512(const TensorView& w, std::int64_t r0, std::int64_t r1, const ActQ8K& x,
                          float* y, std::int64_t ldy) {
  packed_groups<false>(
      w.cols / ggml::kQKK, (r1 - r0) / kRows,
      [&](std::int64_t g, std::uint8_t* out) { pack_group(w, r0 + g * kRows, out); }, x, y + r0,
      ldy);
}

// Rows [r0, r1) of a Q5_K matrix times the batch in x (q8_K, as llama.cpp
// pairs Q5_K); y at row 0's column. Rows past the last whole group are
// copied into a group padded with zero blocks.
void gemm_q5_k_avx512(const TensorView& w, std::int64_t r0, std::int64_t r1, const ActQ8K& x,
                      float* y, std::int64_t ldy) {
  const std::int64_t nb = w.cols / ggml::kQKK, groups = (r1 - r0) / kRows,
                     r16 = r0 + groups * kRows;
  packed_groups<true>(
      nb, groups, [&](std::int64_t g, std::uint8_t* out) { pack_group_q5(w, r0 + g * kRows, out); },
      x, y + r0, ldy);
  if (r16 == r1) return;
  const std::int64_t m = r1 - r16;
  IsaVector<ggml::BlockQ5_K> pad(
      static_cast<std::size_t>(kRows * nb));  // zero blocks: d = dmin = 0
  std::memcpy(pad.data(), w.row(r16), static_cast<std::size_t>(m) * w.row_bytes());
  const TensorView padded{DType::kQ5_K, kRows, w.cols, pad.data()};
  IsaVector<float> out(static_cast<std::size_t>(x.n * kRows));
  packed_groups<true>(
      nb, 1, [&](std::int64_t, std::uint8_t* o) { pack_group_q5(padded, 0, o); }, x, out.data(),
      kRows);
  for (std::int64_t t = 0; t < x.n; ++t)
    std::memcpy(y + t * ldy + r16, out.data() + t * kRows, m * sizeof(float));
}

// kernels_avx512_gemm_k.cpp: plain Q4_K / Q6_K rows on q8_K activations.
void gemm_k_avx512(const TensorView& w, std::int64_t r0, std::int64_t r1, const ActBatch& a,
                   float* y, std::int64_t ldy);

// Rows [r0, r1) of a Q4_Kx16 view times the batch: whole groups by the
// kernels here (q8_K activations: the prefill tiles on the groups' own
// chunks; Q8_K blocks: group_q8k per token); the rows of a group the range
// cuts and the plain rows after the last group by the plain rows' kernels
// on the same activations (dot_row, or the prefill tiles on the rows read
// back as plain blocks).
void gemm_q4_kx16_avx512(const DotKernels& k, const TensorView& w, std::int64_t r0, std::int64_t r1,
                         const ActBatch& a, float* y, std::int64_t ldy) {
  const std::int64_t grouped = q4_kx16_grouped_rows(w), nb = w.cols / ggml::kQKK;
  const std::int64_t g0 = (r0 + kRows - 1) / kRows,
                     g1 = std::max(g0, std::min(r1, grouped) / kRows);
  auto by_rows = [&](std::int64_t from, std::int64_t to) {
    if (from >= to) return;
    if (!a.xk) return gemm_by_rows(k, w, from, to, a, y, ldy);
    // q8_K activations: the plain tiles, so that every row sees the same activations.
    if (from >= grouped) return gemm_k_avx512(w, from, to, a, y, ldy);
    IsaVector<ggml::BlockQ4_K> rows(static_cast<std::size_t>((to - from) * nb));
    for (std::int64_t r = from; r < to; ++r)
      unpack_row_q4_kx16(w, r, rows.data() + (r - from) * nb);
    gemm_k_avx512(TensorView{DType::kQ4_K, to - from, w.cols, rows.data()}, 0, to - from, a,
                  y + from, ldy);
  };
  if (g0 >= g1) return by_rows(r0, r1);
  by_rows(r0, g0 * kRows);
  if (a.xk) {
    packed_groups<false>(
        nb, g1 - g0,
        [&](std::int64_t g, std::uint8_t* out) { pack_repacked_group(w, g0 + g, out); }, *a.xk,
        y + g0 * kRows, ldy);
  } else if (a.xk8) {
    const auto* base = static_cast<const std::uint8_t*>(w.data);
    const std::size_t group_bytes = kRows * w.row_bytes();
    for (std::int64_t t = 0; t < a.n; ++t) {
      for (std::int64_t g = g0; g < g1; ++g) {
        _mm512_storeu_ps(y + t * ldy + g * kRows,
                         group_q8k(base + static_cast<std::size_t>(g) * group_bytes, nb,
                                   a.xk8 + t * a.xk8_stride));
      }
    }
  } else {
    by_rows(g0 * kRows, g1 * kRows);
  }
  by_rows(g1 * kRows, r1);
}

}  // namespace tok::model

#else
namespace tok::model {
void gemm_q4_k_x16_avx512(const TensorView&, std::int64_t, std::int64_t, const ActQ8K&, float*,
                          std::int64_t) {}
void gemm_q4_kx16_avx512(const DotKernels&, const TensorView&, std::int64_t, std::int64_t,
                         const ActBatch&, float*, std::int64_t) {}
}  // namespace tok::model
#endif
