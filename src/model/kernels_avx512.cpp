// AVX-512 VNNI kernels for Q8_0 / Q4_0 weights (issue #7: Q4_0 decode was
// compute-bound at about half llama.cpp's rate), and 512-bit prefill tiles
// for F32 / F16 (and Q4_K / Q6_K rows decoded to floats when the batch has
// no q8_K activations; with them, kernels_avx512_gemm_k.cpp); the dot
// products of Q4_1, Q5_0, Q5_1, Q2_K, Q3_K and Q5_K rows are
// kernels_avx512_types.cpp's. Every other product, and the activation
// quantizer, are the AVX2 kernels'. Compiled with -mavx512f
// -mavx512bw -mavx512vl -mavx512vnni (src/CMakeLists.txt); avx512_kernels()
// says whether the CPU can run them, so the binary still runs on x86-64
// without them.
//
// One VNNI `dpbusd` (unsigned bytes x signed bytes, summed four at a time
// into int32) replaces AVX2's sign trick + maddubs + madd. Its first operand
// must be unsigned, so the weights are offset: a Q4_0 nibble q in 0..15
// stands for q - 8, a Q8_0 byte w (xor 0x80) is w + 128 in 0..255, and
//   sum((q - 8) * x) = sum(q * x) - 8 * sum(x).
// The correction -8 * sum(x) (or -128 * sum(x)) depends on the activation
// block only: it is computed once per block (one more dpbusd) and is the
// accumulator each weight row's dpbusd starts from. Integer sums are exact,
// so results equal the AVX2 and scalar kernels' up to the order of the
// per-block float multiply-adds.
//
// Decode (one token) is what issue #7 measures: two blocks per 512-bit
// register, activations prepared once per product, one row at a time with two
// accumulators (about 2x the AVX2 rate for Q4_0 on the 100M model's
// matrices). Prefill and the single dot products use 256-bit dpbusd.
//
// Nothing here includes simd_avx2.hpp: its inline helpers compiled with
// AVX-512 flags could be the copy the linker keeps for the AVX2 files too.
// avx512_prelude.hpp says why GCC's uninitialized warnings are off.
#include "core/cpu_features.hpp"
#include "model/isa_vector.hpp"
#include "model/kernels.hpp"
#include "model/kernels_avx512_types.hpp"
#include "model/kernels_avx512_vbmi.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include "model/avx512_prelude.hpp"

#include <algorithm>
#include <type_traits>

namespace tok::model {

// kernels_avx2_gemm.cpp: the tiles for the float weight types.
void gemm_avx2(const DotKernels& k, const TensorView& w, std::int64_t r0, std::int64_t r1,
               const ActBatch& a, float* y, std::int64_t ldy);
// kernels_avx512_gemm_k.cpp: Q4_K / Q6_K tiles over q8_K activations.
void gemm_k_avx512(const TensorView& w, std::int64_t r0, std::int64_t r1, const ActBatch& a,
                   float* y, std::int64_t ldy);
// kernels_avx512_q4_k.cpp: Q4_K rows on Q8_K activations (decode).
float dot_q4_k_q8k_avx512(const ggml::BlockQ4_K* w, const ggml::BlockQ8_K* x, std::int64_t n);
void q4_k_decode_avx512(const TensorView& w, std::int64_t r0, std::int64_t r1,
                        const ggml::BlockQ8_K* x, float* y);
void quantize_q8_k_block16_avx512(const float* x, std::int16_t* q, float* d,
                                  float* sums);  // kernels_avx512_q8_k.cpp
void quantize_q8_k_block_avx512(const float* x, ggml::BlockQ8_K* y);
// kernels_avx512_gemm_q4_k.cpp: Q4_K rows repacked in groups of sixteen.
void gemm_q4_kx16_avx512(const DotKernels& k, const TensorView& w, std::int64_t r0, std::int64_t r1,
                         const ActBatch& a, float* y, std::int64_t ldy);
// kernels_avx512_gemm_q6_k.cpp: Q6_K rows repacked in groups of sixteen.
void gemm_q6_kx16_avx512(const DotKernels& k, const TensorView& w, std::int64_t r0, std::int64_t r1,
                         const ActBatch& a, float* y, std::int64_t ldy);
// kernels_avx512_repack.cpp: Q4_0 rows repacked in groups of four.
void gemm_q4_0x4_avx512(const DotKernels& k, const TensorView& w, std::int64_t r0, std::int64_t r1,
                        const ActBatch& a, float* y, std::int64_t ldy);

namespace {

inline float hsum8(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

inline float half_to_float(std::uint16_t h) { return _cvtsh_ss(h); }

inline __m256i load32(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }

// Weight blocks as 32 unsigned bytes, and the offset they carry.
struct VnniQ8_0 {
  using Block = ggml::BlockQ8_0;
  static constexpr int kOffset = 128;
  static __m256i values(const Block& b) {
    return _mm256_xor_si256(load32(b.qs), _mm256_set1_epi8(-128));
  }
};
struct VnniQ4_0 {
  using Block = ggml::BlockQ4_0;
  static constexpr int kOffset = 8;
  // Low nibbles are elements 0..15, high nibbles 16..31.
  static __m256i values(const Block& b) {
    __m128i t = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.qs));
    __m256i v = _mm256_inserti128_si256(_mm256_castsi128_si256(t), _mm_srli_epi16(t, 4), 1);
    return _mm256_and_si256(v, _mm256_set1_epi8(0x0F));
  }
};

// out[m][j] = (row w[m], nb blocks) . (activation x[j]), RM rows x RN tokens
// held in registers for the whole row.
template <class W, int RM, int RN>
void vnni_tile(const typename W::Block* const* w, const ggml::BlockQ8_0* const* x, std::int64_t nb,
               float (*out)[RN]) {
  const __m256i offset = _mm256_set1_epi8(static_cast<char>(W::kOffset));
  __m256 acc[RM][RN];
  TOK_UNROLL
  for (int m = 0; m < RM; ++m) {
    TOK_UNROLL
    for (int j = 0; j < RN; ++j) acc[m][j] = _mm256_setzero_ps();
  }
  for (std::int64_t b = 0; b < nb; ++b) {
    __m256i xv[RN], corr[RN];
    float dx[RN];
    TOK_UNROLL
    for (int j = 0; j < RN; ++j) {
      xv[j] = load32(x[j][b].qs);
      corr[j] = _mm256_sub_epi32(_mm256_setzero_si256(),
                                 _mm256_dpbusd_epi32(_mm256_setzero_si256(), offset, xv[j]));
      dx[j] = half_to_float(x[j][b].d);
    }
    TOK_UNROLL
    for (int m = 0; m < RM; ++m) {
      __m256i wv = W::values(w[m][b]);
      float dw = half_to_float(w[m][b].d);
      TOK_UNROLL
      for (int j = 0; j < RN; ++j) {
        __m256 p = _mm256_cvtepi32_ps(_mm256_dpbusd_epi32(corr[j], wv, xv[j]));
        acc[m][j] = _mm256_fmadd_ps(_mm256_set1_ps(dw * dx[j]), p, acc[m][j]);
      }
    }
  }
  TOK_UNROLL
  for (int m = 0; m < RM; ++m) {
    TOK_UNROLL
    for (int j = 0; j < RN; ++j) out[m][j] = hsum8(acc[m][j]);
  }
}

// One row, 256-bit: four accumulators so that the float multiply-adds of
// consecutive blocks do not wait on each other.
template <class W>
float row_vnni256(const typename W::Block* w, const ggml::BlockQ8_0* x, std::int64_t nb) {
  const __m256i offset = _mm256_set1_epi8(static_cast<char>(W::kOffset));
  __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(),
                   _mm256_setzero_ps()};
  auto block = [&](std::int64_t b, __m256& a) {
    __m256i xv = load32(x[b].qs);
    __m256i corr = _mm256_sub_epi32(_mm256_setzero_si256(),
                                    _mm256_dpbusd_epi32(_mm256_setzero_si256(), offset, xv));
    __m256 p = _mm256_cvtepi32_ps(_mm256_dpbusd_epi32(corr, W::values(w[b]), xv));
    a = _mm256_fmadd_ps(_mm256_set1_ps(half_to_float(w[b].d) * half_to_float(x[b].d)), p, a);
  };
  std::int64_t b = 0;
  for (; b + 4 <= nb; b += 4) {
    TOK_UNROLL
    for (int u = 0; u < 4; ++u) block(b + u, acc[u]);
  }
  for (; b < nb; ++b) block(b, acc[0]);
  return hsum8(_mm256_add_ps(_mm256_add_ps(acc[0], acc[1]), _mm256_add_ps(acc[2], acc[3])));
}

// Decode (one token): two blocks per 512-bit register. A Q4_0 pair's nibbles
// unpack as [block b low | b+1 low | b high | b+1 high] (16 bytes each), so
// the activation pair is permuted to match (once per product, see ActPair);
// scale_index spreads the pair's two scales over the matching lanes.
struct Vnni512Q8_0 {
  using Block = ggml::BlockQ8_0;
  static constexpr int kOffset = 128;
  static constexpr auto kPrefetchHint = _MM_HINT_T1;  // see row_vnni512
  static __m512i acts(const ggml::BlockQ8_0& x0, const ggml::BlockQ8_0& x1) {
    return _mm512_inserti64x4(_mm512_castsi256_si512(load32(x0.qs)), load32(x1.qs), 1);
  }
  static __m512i values(const Block& b0, const Block& b1) {
    return _mm512_xor_si512(acts(b0, b1), _mm512_set1_epi8(-128));
  }
  // Lanes 0-7 hold block b, 8-15 block b+1.
  static __m512i scale_index() {
    return _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1);
  }
};
struct Vnni512Q4_0 {
  using Block = ggml::BlockQ4_0;
  static constexpr int kOffset = 8;
  static constexpr auto kPrefetchHint = _MM_HINT_T0;
  static __m512i acts(const ggml::BlockQ8_0& x0, const ggml::BlockQ8_0& x1) {
    __m512i v = _mm512_inserti64x4(_mm512_castsi256_si512(load32(x0.qs)), load32(x1.qs), 1);
    return _mm512_shuffle_i64x2(v, v, _MM_SHUFFLE(3, 1, 2, 0));
  }
  static __m512i values(const Block& b0, const Block& b1) {
    __m256i t = _mm256_inserti128_si256(
        _mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b0.qs))),
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(b1.qs)), 1);
    __m512i v = _mm512_inserti64x4(_mm512_castsi256_si512(t), _mm256_srli_epi16(t, 4), 1);
    return _mm512_and_si512(v, _mm512_set1_epi8(0x0F));
  }
  static __m512i scale_index() {
    return _mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1);
  }
};

// The two fp16 scales as floats in lanes 0 and 1.
inline __m128 half_pair(std::uint16_t a, std::uint16_t b) {
  return _mm_cvtph_ps(_mm_insert_epi16(_mm_cvtsi32_si128(a), b, 1));
}

// An activation pair prepared once per product and used by every row: the
// bytes in the weights' lane order, the offset correction (the accumulator
// each row's dpbusd starts from) and the two scales.
struct ActPair {
  __m512i x, corr;
  __m128 d;  // lanes 0, 1
};

template <class W512>
void prepare_pairs(const ggml::BlockQ8_0* x, std::int64_t pairs, ActPair* out) {
  const __m512i offset = _mm512_set1_epi8(static_cast<char>(W512::kOffset));
  for (std::int64_t i = 0; i < pairs; ++i) {
    out[i].x = W512::acts(x[2 * i], x[2 * i + 1]);
    out[i].corr = _mm512_sub_epi32(_mm512_setzero_si512(),
                                   _mm512_dpbusd_epi32(_mm512_setzero_si512(), offset, out[i].x));
    out[i].d = half_pair(x[2 * i].d, x[2 * i + 1].d);
  }
}

// kDecodePrefetchBytes (kernels_avx512_vbmi.hpp): how far ahead of the
// weights being read row_vnni512 prefetches. Decode reads each matrix once
// per token, from memory, and the hardware prefetchers alone kept the 100M
// model's Q4_0 decode at 8 GB/s on an Intel Xeon with AVX-512 (they stop at
// every 4 KiB page). Measured there (tok
// generate, 1 thread, tokens/s): Q4_0 97 without, 252 at 8 KiB ahead into
// L1 (T0); Q8_0 88 without, 114 with T0, 140 with T1 (into L2). 16 KiB was as
// good, 32 KiB worse, 1-2 KiB half the gain. Prefetches never fault, so
// reading past the matrix's end is harmless.

// One row over nb blocks: the prepared pairs, two accumulators, and an odd
// last block through the 256-bit code (x: the same blocks, unprepared).
template <class W512, class W256>
float row_vnni512(const typename W512::Block* w, const ActPair* xp, const ggml::BlockQ8_0* x,
                  std::int64_t nb) {
  using Block = typename W512::Block;
  const __m512i idx = W512::scale_index();
  __m512 acc[2] = {_mm512_setzero_ps(), _mm512_setzero_ps()};
  auto pair = [&](std::int64_t b, __m512& a) {
    const ActPair& ap = xp[b / 2];
    __m512 p = _mm512_cvtepi32_ps(_mm512_dpbusd_epi32(ap.corr, W512::values(w[b], w[b + 1]), ap.x));
    __m128 s = _mm_mul_ps(half_pair(w[b].d, w[b + 1].d), ap.d);
    a = _mm512_fmadd_ps(_mm512_permutexvar_ps(idx, _mm512_castps128_ps512(s)), p, a);
  };
  std::int64_t b = 0;
  for (; b + 4 <= nb; b += 4) {
    const char* ahead = reinterpret_cast<const char*>(w + b) + kDecodePrefetchBytes;
    TOK_UNROLL
    for (std::size_t o = 0; o < 4 * sizeof(Block); o += 64) {
      _mm_prefetch(ahead + o, W512::kPrefetchHint);
    }
    pair(b, acc[0]);
    pair(b + 2, acc[1]);
  }
  for (; b + 2 <= nb; b += 2) pair(b, acc[0]);
  float tail = b < nb ? row_vnni256<W256>(w + b, x + b, nb - b) : 0.0f;
  return _mm512_reduce_add_ps(_mm512_add_ps(acc[0], acc[1])) + tail;
}

template <class W>
float dot_vnni(const typename W::Block* w, const ggml::BlockQ8_0* x, std::int64_t n) {
  return row_vnni256<W>(w, x, n / ggml::kQK);
}

struct Ctx {
  const std::uint8_t* w;  // row 0 of the weights
  std::size_t w_row;      // bytes per weight row
  ActBatch a;
  std::int64_t nb;  // blocks per row
  float* y;
  std::int64_t ldy;
};

template <class W, int RM, int RN>
void run_tile(const Ctx& c, std::int64_t r, std::int64_t t) {
  using Block = typename W::Block;
  const Block* w[RM];
  const ggml::BlockQ8_0* x[RN];
  float out[RM][RN];
  TOK_UNROLL
  for (int m = 0; m < RM; ++m)
    w[m] = reinterpret_cast<const Block*>(c.w + static_cast<std::size_t>(r + m) * c.w_row);
  TOK_UNROLL
  for (int j = 0; j < RN; ++j) x[j] = c.a.xq + (t + j) * c.a.xq_stride;
  vnni_tile<W, RM, RN>(w, x, c.nb, out);
  TOK_UNROLL
  for (int m = 0; m < RM; ++m) {
    TOK_UNROLL
    for (int j = 0; j < RN; ++j) c.y[(t + j) * c.ldy + r + m] = out[m][j];
  }
}

// Rows [r0, r1) in tiles of RM rows x RN tokens; leftover tokens one at a
// time, leftover rows one at a time.
template <class W, int RM, int RN>
void tiles(const Ctx& c, std::int64_t r0, std::int64_t r1) {
  auto row_tile = [&c]<int M>(std::int64_t r) {
    std::int64_t t = 0;
    for (; t + RN <= c.a.n; t += RN) run_tile<W, M, RN>(c, r, t);
    for (; t < c.a.n; ++t) run_tile<W, M, 1>(c, r, t);
  };
  std::int64_t r = r0;
  for (; r + RM <= r1; r += RM) row_tile.template operator()<RM>(r);
  for (; r < r1; ++r) row_tile.template operator()<1>(r);
}

// Decode streams one row at a time: tiles of rows, which share each
// activation load, were 3x slower here from memory (they defeat the
// prefetcher; see docs/design.md). The activations are prepared once per chunk of
// columns, on the stack; rows longer than a chunk add up their chunks in y.
template <class W256, class W512>
void decode(const Ctx& c, std::int64_t r0, std::int64_t r1) {
  using Block = typename W256::Block;
  constexpr std::int64_t kChunk = 128;  // pairs of blocks: 8192 columns, 18 KiB
  ActPair xp[kChunk];
  const std::int64_t pairs = c.nb / 2;
  std::int64_t p0 = 0;
  do {
    std::int64_t np = pairs - p0 < kChunk ? pairs - p0 : kChunk;
    std::int64_t blocks = 2 * np + (p0 + np == pairs ? c.nb % 2 : 0);
    prepare_pairs<W512>(c.a.xq + 2 * p0, np, xp);
    for (std::int64_t r = r0; r < r1; ++r) {
      const Block* w =
          reinterpret_cast<const Block*>(c.w + static_cast<std::size_t>(r) * c.w_row) + 2 * p0;
      float v = row_vnni512<W512, W256>(w, xp, c.a.xq + 2 * p0, blocks);
      c.y[r] = p0 == 0 ? v : c.y[r] + v;
    }
    p0 += np;
  } while (p0 < pairs);
}

// Prefill tile, 512-bit: RM rows x RN tokens over pairs of blocks, as
// decode's registers hold them. The activations come prepared (TilePair,
// once per call for every token instead of once per tile), and per pair the
// scales come as vectors (lanes 0-7 block b, 8-15 block b+1), so a pair
// costs one dpbusd, one convert, one multiply and one multiply-add per row
// and token. Needs an even number of blocks (every matrix of the models
// this runs).
struct TilePair {
  __m512i x, corr;  // as ActPair
  __m512 s;         // the two scales spread over their lanes
};

template <class W512>
void prepare_tile_pairs(const ActBatch& a, std::int64_t t0, std::int64_t t1, std::int64_t pairs,
                        TilePair* out) {
  const __m512i offset = _mm512_set1_epi8(static_cast<char>(W512::kOffset));
  const __m512i idx = W512::scale_index();
  for (std::int64_t t = t0; t < t1; ++t) {
    const ggml::BlockQ8_0* x = a.xq + t * a.xq_stride;
    for (std::int64_t p = 0; p < pairs; ++p, ++out) {
      out->x = W512::acts(x[2 * p], x[2 * p + 1]);
      out->corr = _mm512_sub_epi32(_mm512_setzero_si512(),
                                   _mm512_dpbusd_epi32(_mm512_setzero_si512(), offset, out->x));
      out->s =
          _mm512_permutexvar_ps(idx, _mm512_castps128_ps512(half_pair(x[2 * p].d, x[2 * p + 1].d)));
    }
  }
}

// x: the prepared pairs of token t (then t + 1, ... `pairs` apart).
template <class W512, int RM, int RN>
void pair_tile(const Ctx& c, std::int64_t r, const TilePair* x, std::int64_t t) {
  using Block = typename W512::Block;
  const __m512i idx = W512::scale_index();
  const std::int64_t pairs = c.nb / 2;
  const Block* w[RM];
  TOK_UNROLL
  for (int m = 0; m < RM; ++m)
    w[m] = reinterpret_cast<const Block*>(c.w + static_cast<std::size_t>(r + m) * c.w_row);
  __m512 acc[RM][RN];
  TOK_UNROLL
  for (int m = 0; m < RM; ++m) {
    TOK_UNROLL
    for (int j = 0; j < RN; ++j) acc[m][j] = _mm512_setzero_ps();
  }
  for (std::int64_t p = 0; p < pairs; ++p) {
    const std::int64_t b = 2 * p;
    TOK_UNROLL
    for (int m = 0; m < RM; ++m) {
      __m512i wv = W512::values(w[m][b], w[m][b + 1]);
      __m512 ws =
          _mm512_permutexvar_ps(idx, _mm512_castps128_ps512(half_pair(w[m][b].d, w[m][b + 1].d)));
      TOK_UNROLL
      for (int j = 0; j < RN; ++j) {
        const TilePair& xp = x[j * pairs + p];
        __m512 q = _mm512_cvtepi32_ps(_mm512_dpbusd_epi32(xp.corr, wv, xp.x));
        acc[m][j] = _mm512_fmadd_ps(_mm512_mul_ps(ws, xp.s), q, acc[m][j]);
      }
    }
  }
  TOK_UNROLL
  for (int m = 0; m < RM; ++m) {
    TOK_UNROLL
    for (int j = 0; j < RN; ++j) c.y[(t + j) * c.ldy + r + m] = _mm512_reduce_add_ps(acc[m][j]);
  }
}

// Tokens in blocks of kPairTokens (their prepared pairs, 192 bytes each,
// stay in L2: 32 tokens of 2,048 columns are 192 KiB), each block against
// rows [r0, r1) in tiles.
template <class W512, int RM, int RN>
void pair_tiles(const Ctx& c, std::int64_t r0, std::int64_t r1) {
  constexpr std::int64_t kPairTokens = 32;
  const std::int64_t pairs = c.nb / 2;
  IsaVector<TilePair> prepared(static_cast<std::size_t>(kPairTokens * pairs));
  for (std::int64_t t0 = 0; t0 < c.a.n; t0 += kPairTokens) {
    const std::int64_t t1 = std::min(c.a.n, t0 + kPairTokens);
    prepare_tile_pairs<W512>(c.a, t0, t1, pairs, prepared.data());
    auto row_tile = [&]<int M>(std::int64_t r) {
      std::int64_t t = t0;
      for (; t + RN <= t1; t += RN)
        pair_tile<W512, M, RN>(c, r, prepared.data() + (t - t0) * pairs, t);
      for (; t < t1; ++t) pair_tile<W512, M, 1>(c, r, prepared.data() + (t - t0) * pairs, t);
    };
    std::int64_t r = r0;
    for (; r + RM <= r1; r += RM) row_tile.template operator()<RM>(r);
    for (; r < r1; ++r) row_tile.template operator()<1>(r);
  }
}

template <class W256, class W512>
void tiled(const Ctx& c, std::int64_t r0, std::int64_t r1) {
  if (c.a.n == 1 && std::is_same_v<W256, VnniQ4_0> && q4_0_decode_vbmi_supported()) {
    return q4_0_decode_vbmi(c.w, c.w_row, c.a.xq, c.nb, r0, r1, c.y);
  }
  if (c.a.n == 1) {
    decode<W256, W512>(c, r0, r1);
  } else if (c.nb % 2 == 0) {
    pair_tiles<W512, 4, 4>(c, r0, r1);
  } else {
    tiles<W256, 4, 2>(c, r0, r1);
  }
}

// Float weights times several tokens (prefill), 512-bit: F32 and F16 rows
// as stored, Q4_K / Q6_K rows decoded to floats four at a time once per
// batch (as kernels_avx2_gemm.cpp's decoded_tiles), RM rows x RN tokens of
// accumulators. Twice the AVX2 tile's multiply-adds per instruction.
struct Load512F32 {
  static __m512 load(const std::uint8_t* row, std::int64_t i) {
    return _mm512_loadu_ps(reinterpret_cast<const float*>(row) + i);
  }
};
struct Load512F16 {
  static __m512 load(const std::uint8_t* row, std::int64_t i) {
    return _mm512_cvtph_ps(load32(row + 2 * i));
  }
};

// y[(t + j) * ldy + m] for rows w, w + w_row, ... and tokens t, t + 1, ...
template <class Load, int RM, int RN>
void float_tile(const std::uint8_t* w, std::size_t w_row, const ActBatch& a, std::int64_t cols,
                std::int64_t t, float* y, std::int64_t ldy) {
  __m512 acc[RM][RN];
  TOK_UNROLL
  for (int m = 0; m < RM; ++m) {
    TOK_UNROLL
    for (int j = 0; j < RN; ++j) acc[m][j] = _mm512_setzero_ps();
  }
  const float* x = a.x + t * a.x_stride;
  for (std::int64_t i = 0; i < cols; i += 16) {
    __m512 xv[RN];
    TOK_UNROLL
    for (int j = 0; j < RN; ++j) xv[j] = _mm512_loadu_ps(x + j * a.x_stride + i);
    TOK_UNROLL
    for (int m = 0; m < RM; ++m) {
      __m512 wv = Load::load(w + m * w_row, i);
      TOK_UNROLL
      for (int j = 0; j < RN; ++j) acc[m][j] = _mm512_fmadd_ps(wv, xv[j], acc[m][j]);
    }
  }
  TOK_UNROLL
  for (int m = 0; m < RM; ++m) {
    TOK_UNROLL
    for (int j = 0; j < RN; ++j) y[(t + j) * ldy + m] = _mm512_reduce_add_ps(acc[m][j]);
  }
}

template <class Load, int RM, int RN>
void float_block(const std::uint8_t* w, std::size_t w_row, std::int64_t rows, const ActBatch& a,
                 std::int64_t cols, float* y, std::int64_t ldy) {
  auto row_tile = [&]<int M>(std::int64_t r) {
    std::int64_t t = 0;
    for (; t + RN <= a.n; t += RN)
      float_tile<Load, M, RN>(w + r * w_row, w_row, a, cols, t, y + r, ldy);
    for (; t < a.n; ++t) float_tile<Load, M, 1>(w + r * w_row, w_row, a, cols, t, y + r, ldy);
  };
  std::int64_t r = 0;
  for (; r + RM <= rows; r += RM) row_tile.template operator()<RM>(r);
  for (; r < rows; ++r) row_tile.template operator()<1>(r);
}

// Cache blocks: kBlockRows rows times kBlockTokens tokens at a time, so
// that both stay in L2 (32 rows or tokens of 2,048 floats are 256 KiB).
// Tiles that swept every token of the batch for each 4 rows streamed all the
// activations (4 MiB for a 512-token batch of 2,048 floats) through L2 once
// per 4 rows.
constexpr std::int64_t kBlockRows = 32, kBlockTokens = 32;

template <class Load, int RM, int RN>
void float_rows(const std::uint8_t* w, std::size_t w_row, std::int64_t rows, const ActBatch& a,
                std::int64_t cols, float* y, std::int64_t ldy) {
  for (std::int64_t r = 0; r < rows; r += kBlockRows) {
    for (std::int64_t t = 0; t < a.n; t += kBlockTokens) {
      ActBatch part = a;
      part.x = a.x + t * a.x_stride;
      part.n = std::min(kBlockTokens, a.n - t);
      float_block<Load, RM, RN>(w + r * w_row, w_row, std::min(kBlockRows, rows - r), part, cols,
                                y + t * ldy + r, ldy);
    }
  }
}

constexpr int kFloatRm = 4, kFloatRn = 4;

void float_gemm(const TensorView& w, std::int64_t r0, std::int64_t r1, const ActBatch& a, float* y,
                std::int64_t ldy) {
  const std::uint8_t* base =
      static_cast<const std::uint8_t*>(w.data) + static_cast<std::size_t>(r0) * w.row_bytes();
  if (w.type == DType::kF32) {
    return float_rows<Load512F32, kFloatRm, kFloatRn>(base, w.row_bytes(), r1 - r0, a, w.cols,
                                                      y + r0, ldy);
  }
  if (w.type == DType::kF16) {
    return float_rows<Load512F16, kFloatRm, kFloatRn>(base, w.row_bytes(), r1 - r0, a, w.cols,
                                                      y + r0, ldy);
  }
  IsaVector<float> rows(static_cast<std::size_t>(kBlockRows * w.cols));  // (kBlockRows, cols)
  const std::size_t row_bytes = static_cast<std::size_t>(w.cols) * sizeof(float);
  for (std::int64_t r = r0; r < r1; r += kBlockRows) {
    std::int64_t m = std::min<std::int64_t>(kBlockRows, r1 - r);
    for (std::int64_t i = 0; i < m; ++i)
      dequantize_row(w.type, w.row(r + i), rows.data() + i * w.cols, w.cols);
    float_rows<Load512F32, kFloatRm, kFloatRn>(reinterpret_cast<const std::uint8_t*>(rows.data()),
                                               row_bytes, m, a, w.cols, y + r, ldy);
  }
}

bool float_tiled(const TensorView& w, const ActBatch& a) {
  bool k_quant = w.type == DType::kQ4_K || w.type == DType::kQ6_K;
  return w.cols % 16 == 0 && (w.type == DType::kF32 || w.type == DType::kF16 ||
                              (k_quant && a.n >= kKQuantTileMinTokens));
}

void gemm_avx512(const DotKernels& k, const TensorView& w, std::int64_t r0, std::int64_t r1,
                 const ActBatch& a, float* y, std::int64_t ldy) {
  if (w.q4_0x4) return gemm_q4_0x4_avx512(k, w, r0, r1, a, y, ldy);
  if (w.q4_kx16) return gemm_q4_kx16_avx512(k, w, r0, r1, a, y, ldy);
  if (w.q6_kx16) return gemm_q6_kx16_avx512(k, w, r0, r1, a, y, ldy);
  if (w.cols % ggml::kQK == 0 && (w.type == DType::kQ8_0 || w.type == DType::kQ4_0)) {
    Ctx c{static_cast<const std::uint8_t*>(w.data), w.row_bytes(), a, w.cols / ggml::kQK, y, ldy};
    return w.type == DType::kQ8_0 ? tiled<VnniQ8_0, Vnni512Q8_0>(c, r0, r1)
                                  : tiled<VnniQ4_0, Vnni512Q4_0>(c, r0, r1);
  }
  if (w.type == DType::kQ4_K && a.xk8 && a.n == 1) return q4_k_decode_avx512(w, r0, r1, a.xk8, y);
  if (a.xk && (w.type == DType::kQ2_K || w.type == DType::kQ3_K || w.type == DType::kQ4_K ||
               w.type == DType::kQ5_K || w.type == DType::kQ6_K)) {
    return gemm_k_avx512(w, r0, r1, a, y, ldy);
  }
  if (a.n > 1 && float_tiled(w, a)) return float_gemm(w, r0, r1, a, y, ldy);
  gemm_avx2(k, w, r0, r1, a, y, ldy);
}

}  // namespace

const DotKernels* avx512_kernels() {
  static const DotKernels* kernels = []() -> const DotKernels* {
    const DotKernels* avx2 = avx2_kernels();
    const CpuFeatures& cpu = cpu_features();
    if (!avx2 || !cpu.avx512f || !cpu.avx512bw || !cpu.avx512vl || !cpu.avx512vnni) {
      return nullptr;
    }
    static DotKernels k = *avx2;
    k.isa = Isa::kAvx512Vnni;
    k.q8_0 = dot_vnni<VnniQ8_0>;
    k.q4_0 = dot_vnni<VnniQ4_0>;
    k.q4_k_q8k = dot_q4_k_q8k_avx512;
    k.q8_k_block16 = quantize_q8_k_block16_avx512;
    k.q8_k_block = quantize_q8_k_block_avx512;
    k.gemm = gemm_avx512;
    // 1.4x to 1.6x the AVX2 kernels' decode rate (BENCHMARKS.md).
    k.q4_1 = avx512::dot_q4_1;
    k.q5_0 = avx512::dot_q5_0;
    k.q5_1 = avx512::dot_q5_1;
    k.q2_k = avx512::dot_q2_k;
    k.q3_k = avx512::dot_q3_k;
    k.q5_k = avx512::dot_q5_k;
    // Decode on Q8_K: llama.cpp's integer sums (kernels_avx512_k_q8k.cpp).
    k.q2_k_q8k = avx512::dot_q2_k_q8k;
    k.q3_k_q8k = avx512::dot_q3_k_q8k;
    k.q5_k_q8k = avx512::dot_q5_k_q8k;
    return &k;
  }();
  return kernels;
}

}  // namespace tok::model

#else
namespace tok::model {
const DotKernels* avx512_kernels() { return nullptr; }
}  // namespace tok::model
#endif
