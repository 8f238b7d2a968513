// Q6_K rows in groups of sixteen (Q6_Kx16, model/repack.hpp) with AVX-512
// VNNI: one row per 32-bit lane, as the Q4_Kx16 kernels
// (kernels_avx512_gemm_q4_k.cpp).
//
// A Q6_K block keeps value 128 h + 32 qq + l (l < 32) as 4 low bits in
// ql[64 h + l + 32 (qq & 1)] (the low nibble for qq < 2, the high one
// otherwise) and 2 high bits at bit 2 qq of qh[32 h + l]. So a dword of ql
// and the dword of qh at the same l give 4 consecutive values of each
// quarter qq: two masks, two shifts and an or make the 6-bit values as
// bytes, and one vpdpbusd adds 4 products with the Q8_K activations into
// each of 16 rows. Per 16-value sub-block j the integer sum is multiplied by
// the rows' int8 scale, and the -32 offset of the values comes in as
// -32 * scale * (the activations' sum over j, from bsums): ggml's integer
// sums (ggml_vec_dot_q6_K_q8_K), one float multiply-add per super-block for
// 16 rows.
//
// Decode (Q8_K blocks) runs here; prompts (q8_K activations) read the
// groups back as plain rows, a block at a time, for the int16 tiles of
// kernels_avx512_gemm_k.cpp.
//
// Compiled with -mavx512f -mavx512bw -mavx512vl -mavx512vnni
// (src/CMakeLists.txt); called only from the AVX-512 kernel set.
#include "model/act_q8_k.hpp"
#include "model/isa_vector.hpp"
#include "model/kernels.hpp"
#include "model/kernels_avx512_vbmi.hpp"
#include "model/repack.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <algorithm>
#include <cstring>

#include "model/avx512_prelude.hpp"

namespace tok::model {

// kernels_avx512_gemm_k.cpp: plain Q4_K / Q6_K rows on q8_K activations.
void gemm_k_avx512(const TensorView& w, std::int64_t r0, std::int64_t r1, const ActBatch& a,
                   float* y, std::int64_t ldy);

namespace {

constexpr std::int64_t kRows = kQ6Kx16Rows;

inline __m512i bcast(const std::int8_t* p) {
  std::int32_t v;
  std::memcpy(&v, p, sizeof v);
  return _mm512_set1_epi32(v);
}

// Byte b of each lane's dword v, sign-extended to int32.
inline __m512i lane_byte(__m512i v, int b) {
  return _mm512_srai_epi32(_mm512_slli_epi32(v, 24 - 8 * b), 24);
}

// One group's units at u times one token's Q8_K blocks x: the 16 rows' dot
// products in the lanes. Prefetches kDecodePrefetchBytes ahead, as the
// other decode kernels.
inline __m512 group_q8k(const std::uint8_t* u, std::int64_t nb, const ggml::BlockQ8_K* x) {
  const __m512i low4 = _mm512_set1_epi8(0x0F), high2 = _mm512_set1_epi8(0x30);
  __m512 acc = _mm512_setzero_ps();
  for (std::int64_t s = 0; s < nb; ++s, u += kQ6Kx16UnitBytes) {
    TOK_UNROLL
    for (std::size_t o = 0; o < kQ6Kx16UnitBytes; o += 64) {
      _mm_prefetch(reinterpret_cast<const char*>(u) + kDecodePrefetchBytes + o, _MM_HINT_T0);
    }
    __m512i sc[4];
    TOK_UNROLL
    for (int k = 0; k < 4; ++k) sc[k] = _mm512_loadu_si512(u + kQ6Kx16ScalesAt + 64 * k);
    __m512i isum = _mm512_setzero_si512(), xsum = _mm512_setzero_si512();
    TOK_UNROLL
    for (int h = 0; h < 2; ++h) {
      TOK_UNROLL
      for (int qq = 0; qq < 4; ++qq) {
        TOK_UNROLL
        for (int lb = 0; lb < 2; ++lb) {  // sub-block j: values 128 h + 32 qq + 16 lb ..
          const int j = 8 * h + 2 * qq + lb;
          __m512i t = _mm512_setzero_si512();
          TOK_UNROLL
          for (int kk = 0; kk < 4; ++kk) {
            const int d = 4 * lb + kk;  // dword of the half's l
            __m512i lo = _mm512_loadu_si512(u + 64 * (16 * h + 8 * (qq & 1) + d));
            if (qq >= 2) lo = _mm512_srli_epi16(lo, 4);
            __m512i hi = _mm512_loadu_si512(u + kQ6Kx16QhAt + 64 * (8 * h + d));
            // Bits 2 qq, 2 qq + 1 of each byte to bits 4, 5.
            hi =
                2 * qq <= 4 ? _mm512_slli_epi16(hi, 4 - 2 * qq) : _mm512_srli_epi16(hi, 2 * qq - 4);
            const __m512i q =
                _mm512_or_si512(_mm512_and_si512(lo, low4), _mm512_and_si512(hi, high2));
            t = _mm512_dpbusd_epi32(t, q, bcast(x[s].qs + 128 * h + 32 * qq + 16 * lb + 4 * kk));
          }
          const __m512i scale = lane_byte(sc[j / 4], j % 4);
          isum = _mm512_add_epi32(isum, _mm512_mullo_epi32(t, scale));
          xsum =
              _mm512_add_epi32(xsum, _mm512_mullo_epi32(scale, _mm512_set1_epi32(x[s].bsums[j])));
        }
      }
    }
    const __m512i total = _mm512_sub_epi32(isum, _mm512_slli_epi32(xsum, 5));  // values q - 32
    const __m512 d =
        _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(u + kQ6Kx16DAt)));
    acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(total), _mm512_mul_ps(d, _mm512_set1_ps(x[s].d)), acc);
  }
  return acc;
}

}  // namespace

// Rows [r0, r1) of a Q6_Kx16 view times the batch: whole groups by
// group_q8k per token (Q8_K blocks); prompts' q8_K activations through the
// plain rows' tiles on rows read back a block at a time; rows of a group the
// range cuts and plain rows after the last group by the plain rows' kernels.
void gemm_q6_kx16_avx512(const DotKernels& k, const TensorView& w, std::int64_t r0, std::int64_t r1,
                         const ActBatch& a, float* y, std::int64_t ldy) {
  const std::int64_t grouped = q6_kx16_grouped_rows(w), nb = w.cols / ggml::kQKK;
  if (a.xk) {
    // Plain rows read back 64 at a time (the int16 tiles decode blocks of
    // 16 to 128 rows once per product anyway).
    constexpr std::int64_t kBack = 64;
    IsaVector<ggml::BlockQ6_K> rows(static_cast<std::size_t>(std::min(kBack, r1 - r0) * nb));
    for (std::int64_t r = r0; r < r1; r += kBack) {
      const std::int64_t m = std::min(kBack, r1 - r);
      if (r >= grouped) {
        gemm_k_avx512(w, r, r1, a, y, ldy);  // the plain rows after the last group
        return;
      }
      for (std::int64_t i = 0; i < m; ++i) unpack_row_q6_kx16(w, r + i, rows.data() + i * nb);
      gemm_k_avx512(TensorView{DType::kQ6_K, m, w.cols, rows.data()}, 0, m, a, y + r, ldy);
    }
    return;
  }
  const std::int64_t g0 = (r0 + kRows - 1) / kRows,
                     g1 = std::max(g0, std::min(r1, grouped) / kRows);
  auto by_rows = [&](std::int64_t from, std::int64_t to) {
    gemm_by_rows(k, w, from, to, a, y, ldy);
  };
  if (g0 >= g1 || !a.xk8) return by_rows(r0, r1);
  by_rows(r0, g0 * kRows);
  const auto* base = static_cast<const std::uint8_t*>(w.data);
  const std::size_t group_bytes = kRows * w.row_bytes();
  for (std::int64_t t = 0; t < a.n; ++t) {
    for (std::int64_t g = g0; g < g1; ++g) {
      _mm512_storeu_ps(y + t * ldy + g * kRows,
                       group_q8k(base + static_cast<std::size_t>(g) * group_bytes, nb,
                                 a.xk8 + t * a.xk8_stride));
    }
  }
  by_rows(g1 * kRows, r1);
}

}  // namespace tok::model

#else
namespace tok::model {
void gemm_q6_kx16_avx512(const DotKernels&, const TensorView&, std::int64_t, std::int64_t,
                         const ActBatch&, float*, std::int64_t) {}
}  // namespace tok::model
#endif
