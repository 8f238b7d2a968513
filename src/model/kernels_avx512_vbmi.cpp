// Q4_0 decode (one token) with AVX-512 VBMI byte permutes, four blocks a
// 512-bit register. The VNNI decode in kernels_avx512.cpp takes two blocks a
// register and spends most of its instructions gathering them (two 16-byte
// loads and two inserts for the nibbles, two 16-bit inserts for the scales),
// which left the 100M model's Q4_0 decode compute-bound below llama.cpp's
// rate. Here four consecutive blocks are 72 contiguous bytes: two unaligned
// 64-byte loads (bytes 0-63 and 8-71) and one vpermt2b put their 64 nibble
// bytes in order, one vpermw picks their four fp16 scales (at bytes 0, 18,
// 36, 54), and
//   low nibbles  = [b0 e0-15 | b1 e0-15 | b2 e0-15 | b3 e0-15]
//   high nibbles = [b0 e16-31 | ... | b3 e16-31]
// meet activations prepared once per product in the same order, so both
// dpbusd land block k in int32 lanes 4k..4k+3 and add up before one
// conversion and one multiply-add with the scales spread to match. The
// offset correction is as in kernels_avx512.cpp: nibbles q stand for q - 8,
// so each group's accumulator starts at -8 * sum(x).
//
// Compiled with -mavx512vbmi (src/CMakeLists.txt) and called only where the
// CPU has it (q4_0_decode_vbmi_supported); the rest of the AVX-512 kernels
// do not need it (Cascade Lake has VNNI without VBMI).
#include "model/kernels_avx512_vbmi.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include "core/cpu_features.hpp"
#include "ggml/blocks.hpp"
#include "model/avx512_prelude.hpp"

#include "model/avx512_q8_0_quad.hpp"

#include <cstdlib>

namespace tok::model {
namespace {

static_assert(sizeof(ggml::BlockQ4_0) == 18 && sizeof(ggml::BlockQ8_0) == 34);

// Activations of four blocks in the weights' nibble order, the offset
// correction each row's sum starts from, and the four scales.
using ActQuad = Q8_0Quad;

void prepare(const ggml::BlockQ8_0* x, std::int64_t quads, ActQuad* out) {
  for (std::int64_t i = 0; i < quads; ++i) {
    out[i] = load_q8_0_quad(x + 4 * i);
  }
}

// Output byte i of the nibble permute (block i / 16, nibble byte i % 16)
// comes from byte 18 * (i / 16) + 2 + i % 16 of the four blocks; past byte
// 63, from the second load (which starts at byte 8): index 64 + offset - 8.
// Built at compile time: a constructor run at startup would be compiled with
// this file's AVX-512 flags and stop the program on CPUs without them.
struct PermuteTables {
  alignas(64) std::uint8_t nibbles[64];
  alignas(64) std::uint16_t scales[32];  // words 0, 9, 18, 27: bytes 0, 18, 36, 54
  constexpr PermuteTables() : nibbles{}, scales{0, 9, 18, 27} {
    for (int i = 0; i < 64; ++i) {
      int offset = 18 * (i / 16) + 2 + i % 16;
      nibbles[i] = static_cast<std::uint8_t>(offset < 64 ? offset : 64 + offset - 8);
    }
  }
};
constexpr PermuteTables kTables;

// One Q4_0 block times one Q8_0 block, exactly in integers (the tail of a
// row whose block count is not a multiple of four).
float block_dot(const ggml::BlockQ4_0& w, const ggml::BlockQ8_0& x) {
  int s = 0;
  for (int j = 0; j < ggml::kQK / 2; ++j) {
    s += ((w.qs[j] & 0x0F) - 8) * x.qs[j] + ((w.qs[j] >> 4) - 8) * x.qs[j + ggml::kQK / 2];
  }
  return _cvtsh_ss(w.d) * _cvtsh_ss(x.d) * static_cast<float>(s);
}

// One row's quads (prefetching kDecodePrefetchBytes ahead into L1, as the
// VNNI Q4_0 decode does) [0, nq) against prepared activations.
float row(const ggml::BlockQ4_0* w, const ActQuad* xq, std::int64_t nq) {
  const __m512i nibbles = _mm512_load_si512(kTables.nibbles);
  const __m512i scales = _mm512_load_si512(kTables.scales);
  const __m512i spread = _mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3);
  const __m512i low4 = _mm512_set1_epi8(0x0F);
  __m512 acc[2] = {_mm512_setzero_ps(), _mm512_setzero_ps()};
  const char* p = reinterpret_cast<const char*>(w);
  for (std::int64_t i = 0; i < nq; ++i, p += 4 * sizeof(ggml::BlockQ4_0)) {
    _mm_prefetch(p + kDecodePrefetchBytes, _MM_HINT_T0);
    _mm_prefetch(p + kDecodePrefetchBytes + 64, _MM_HINT_T0);
    __m512i a = _mm512_loadu_si512(p);
    __m512i b = _mm512_loadu_si512(p + 8);
    __m512i q = _mm512_permutex2var_epi8(a, nibbles, b);
    __m512i wl = _mm512_and_si512(q, low4);
    __m512i wh = _mm512_and_si512(_mm512_srli_epi16(q, 4), low4);
    const ActQuad& x = xq[i];
    __m512i s = _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(x.corr, wl, x.lo), wh, x.hi);
    __m128 d =
        _mm_mul_ps(_mm_cvtph_ps(_mm512_castsi512_si128(_mm512_permutexvar_epi16(scales, a))), x.d);
    __m512 d16 = _mm512_permutexvar_ps(spread, _mm512_castps128_ps512(d));
    acc[i & 1] = _mm512_fmadd_ps(d16, _mm512_cvtepi32_ps(s), acc[i & 1]);
  }
  return _mm512_reduce_add_ps(_mm512_add_ps(acc[0], acc[1]));
}

}  // namespace

bool q4_0_decode_vbmi_supported() {
  // TOK_NO_VBMI=1 times the two-blocks-a-register VNNI decode instead.
  const CpuFeatures& cpu = cpu_features();
  static const bool ok = cpu.avx512f && cpu.avx512bw && cpu.avx512vnni && cpu.avx512vbmi &&
                         !std::getenv("TOK_NO_VBMI");
  return ok;
}

void q4_0_decode_vbmi(const std::uint8_t* w, std::size_t w_row, const ggml::BlockQ8_0* x,
                      std::int64_t nb, std::int64_t r0, std::int64_t r1, float* y) {
  constexpr std::int64_t kChunk = 64;  // quads: 8192 columns, 16 KiB of prepared activations
  ActQuad xq[kChunk];
  const std::int64_t quads = nb / 4;
  for (std::int64_t q0 = 0; q0 < quads; q0 += kChunk) {
    std::int64_t nq = quads - q0 < kChunk ? quads - q0 : kChunk;
    prepare(x + 4 * q0, nq, xq);
    for (std::int64_t r = r0; r < r1; ++r) {
      const auto* row_w =
          reinterpret_cast<const ggml::BlockQ4_0*>(w + static_cast<std::size_t>(r) * w_row);
      float v = row(row_w + 4 * q0, xq, nq);
      y[r] = q0 == 0 ? v : y[r] + v;
    }
  }
  if (nb % 4) {
    for (std::int64_t r = r0; r < r1; ++r) {
      const auto* row_w =
          reinterpret_cast<const ggml::BlockQ4_0*>(w + static_cast<std::size_t>(r) * w_row);
      float t = 0;
      for (std::int64_t b = 4 * quads; b < nb; ++b) t += block_dot(row_w[b], x[b]);
      y[r] = quads ? y[r] + t : t;
    }
  }
}

}  // namespace tok::model

#else
namespace tok::model {
bool q4_0_decode_vbmi_supported() { return false; }
void q4_0_decode_vbmi(const std::uint8_t*, std::size_t, const ggml::BlockQ8_0*, std::int64_t,
                      std::int64_t, std::int64_t, float*) {}
}  // namespace tok::model
#endif
