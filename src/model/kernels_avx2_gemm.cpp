// AVX2 register-tiled matrix products (the `gemm` of the AVX2 kernels). A
// tile is RM weight rows x RN tokens, accumulated in RM * RN registers over
// the whole row: each weight vector loaded serves RN tokens and each
// activation vector serves RM rows, which is what lets prefill (many tokens)
// run from registers instead of re-reading weights per token. Decode (one
// token) uses tall tiles so the activation loads are shared by many rows.
// Like llama.cpp's Q8_0 / Q4_0 dots, quantized weights are multiplied with
// Q8_0 activations in integers, one float multiply-add per 32-element block.
#include <algorithm>

#include "model/isa_vector.hpp"
#include "model/kernels.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include "model/simd_avx2.hpp"

namespace tok::model {
namespace {

using namespace avx2;

// The tile loops must unroll completely so the accumulators live in registers.
#define TOK_UNROLL _Pragma("GCC unroll 16")

struct Ctx {
  const std::uint8_t* w;  // row 0 of the weights
  std::size_t w_row;      // bytes per weight row
  ActBatch a;
  std::int64_t cols;
  float* y;
  std::int64_t ldy;
};

// F32 and F16 weights times float activations.
struct LoadF32 {
  static __m256 load(const std::uint8_t* row, std::int64_t i) {
    return _mm256_loadu_ps(reinterpret_cast<const float*>(row) + i);
  }
};
struct LoadF16 {
  static __m256 load(const std::uint8_t* row, std::int64_t i) {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + 2 * i)));
  }
};

template <class Load>
struct FloatTile {
  template <int RM, int RN>
  static void run(const Ctx& c, std::int64_t r, std::int64_t t) {
    __m256 acc[RM][RN] = {};
    const std::uint8_t* w = c.w + static_cast<std::size_t>(r) * c.w_row;
    const float* x = c.a.x + t * c.a.x_stride;
    for (std::int64_t i = 0; i < c.cols; i += 8) {
      __m256 xv[RN];
      TOK_UNROLL
      for (int j = 0; j < RN; ++j) xv[j] = _mm256_loadu_ps(x + j * c.a.x_stride + i);
      TOK_UNROLL
      for (int m = 0; m < RM; ++m) {
        __m256 wv = Load::load(w + m * c.w_row, i);
        TOK_UNROLL
        for (int j = 0; j < RN; ++j) acc[m][j] = _mm256_fmadd_ps(wv, xv[j], acc[m][j]);
      }
    }
    TOK_UNROLL
    for (int m = 0; m < RM; ++m) {
      TOK_UNROLL
      for (int j = 0; j < RN; ++j) c.y[(t + j) * c.ldy + r + m] = hsum(acc[m][j]);
    }
  }
};

// Q8_0 / Q4_0 weights times Q8_0 activations.
struct WeightsQ8_0 {
  using Block = ggml::BlockQ8_0;
  static __m256i values(const Block& b) { return load256(b.qs); }
};
struct WeightsQ4_0 {
  using Block = ggml::BlockQ4_0;
  static __m256i values(const Block& b) { return q4_0_values(b.qs); }
};

template <class W>
struct QuantTile {
  template <int RM, int RN>
  static void run(const Ctx& c, std::int64_t r, std::int64_t t) {
    using Block = typename W::Block;
    __m256 acc[RM][RN] = {};
    const Block* w[RM];
    TOK_UNROLL
    for (int m = 0; m < RM; ++m) {
      w[m] = reinterpret_cast<const Block*>(c.w + static_cast<std::size_t>(r + m) * c.w_row);
    }
    const ggml::BlockQ8_0* x = c.a.xq + t * c.a.xq_stride;
    for (std::int64_t b = 0; b < c.cols / ggml::kQK; ++b) {
      __m256i xv[RN];
      float dx[RN];
      TOK_UNROLL
      for (int j = 0; j < RN; ++j) {
        const ggml::BlockQ8_0& xb = x[j * c.a.xq_stride + b];
        xv[j] = load256(xb.qs);
        dx[j] = half(xb.d);
      }
      TOK_UNROLL
      for (int m = 0; m < RM; ++m) {
        __m256i wv = W::values(w[m][b]);
        __m256i aw = _mm256_sign_epi8(wv, wv);
        float dw = half(w[m][b].d);
        TOK_UNROLL
        for (int j = 0; j < RN; ++j) {
          acc[m][j] = _mm256_fmadd_ps(_mm256_set1_ps(dw * dx[j]), dot_i8(aw, wv, xv[j]), acc[m][j]);
        }
      }
    }
    TOK_UNROLL
    for (int m = 0; m < RM; ++m) {
      TOK_UNROLL
      for (int j = 0; j < RN; ++j) c.y[(t + j) * c.ldy + r + m] = hsum(acc[m][j]);
    }
  }
};

// Rows [r0, r1) in tiles of RM rows; within a row tile, tokens in tiles of
// RN, the leftover tokens one at a time; leftover rows one at a time.
template <class Tile, int RM, int RN>
void tiles_for_row(const Ctx& c, std::int64_t r) {
  std::int64_t t = 0;
  for (; t + RN <= c.a.n; t += RN) Tile::template run<RM, RN>(c, r, t);
  if constexpr (RN > 1) {
    for (; t < c.a.n; ++t) Tile::template run<RM, 1>(c, r, t);
  }
}

template <class Tile, int RM, int RN>
void tiles(const Ctx& c, std::int64_t r0, std::int64_t r1) {
  std::int64_t r = r0;
  for (; r + RM <= r1; r += RM) tiles_for_row<Tile, RM, RN>(c, r);
  for (; r < r1; ++r) tiles_for_row<Tile, 1, RN>(c, r);
}

// Tile shapes: 16 ymm registers hold RM * RN accumulators plus the loads.
template <class Tile, int kPrefillRm, int kPrefillRn>
void tiled(const Ctx& c, std::int64_t r0, std::int64_t r1) {
  if (c.a.n == 1) {
    tiles<Tile, 1, 1>(c, r0, r1);
  } else {
    tiles<Tile, kPrefillRm, kPrefillRn>(c, r0, r1);
  }
}

// K-quant weights times several tokens (prefill): the fused dot kernels
// decode every super-block once per token; here each group of RM rows is
// decoded to floats once per batch, into a buffer that stays in cache, and
// the F32 tiles multiply it with every token. Decode (one token) keeps the
// fused kernels, which read the weights once either way.
template <int RM, int RN>
void decoded_tiles(const TensorView& w, std::int64_t r0, std::int64_t r1, const ActBatch& a,
                   float* y, std::int64_t ldy) {
  IsaVector<float> rows(static_cast<std::size_t>(RM * w.cols));  // (RM, cols)
  Ctx c{reinterpret_cast<const std::uint8_t*>(rows.data()),
        static_cast<std::size_t>(w.cols) * sizeof(float),
        a,
        w.cols,
        nullptr,
        ldy};
  for (std::int64_t r = r0; r < r1; r += RM) {
    std::int64_t m = std::min<std::int64_t>(RM, r1 - r);
    for (std::int64_t i = 0; i < m; ++i)
      dequantize_row(w.type, w.row(r + i), rows.data() + i * w.cols, w.cols);
    c.y = y + r;
    if (m == RM) {
      tiles_for_row<FloatTile<LoadF32>, RM, RN>(c, 0);
    } else {
      for (std::int64_t i = 0; i < m; ++i) tiles_for_row<FloatTile<LoadF32>, 1, RN>(c, i);
    }
  }
}

}  // namespace

void gemm_avx2(const DotKernels& k, const TensorView& w, std::int64_t r0, std::int64_t r1,
               const ActBatch& a, float* y, std::int64_t ldy) {
  if (w.q4_0x4 || w.q4_kx16 || w.q6_kx16)
    return gemm_by_rows(k, w, r0, r1, a, y, ldy);  // only AVX-512 has their kernels
  Ctx c{static_cast<const std::uint8_t*>(w.data), w.row_bytes(), a, w.cols, y, ldy};
  bool whole_vectors = w.cols % ggml::kQK == 0;
  switch (whole_vectors ? w.type : DType::kBF16) {
    case DType::kF32: return tiled<FloatTile<LoadF32>, 4, 3>(c, r0, r1);
    case DType::kF16: return tiled<FloatTile<LoadF16>, 4, 3>(c, r0, r1);
    case DType::kQ8_0: return tiled<QuantTile<WeightsQ8_0>, 4, 2>(c, r0, r1);
    case DType::kQ4_0: return tiled<QuantTile<WeightsQ4_0>, 4, 2>(c, r0, r1);
    case DType::kQ4_K:
    case DType::kQ6_K:
      if (a.n >= kKQuantTileMinTokens) return decoded_tiles<4, 3>(w, r0, r1, a, y, ldy);
      return gemm_by_rows(k, w, r0, r1, a, y, ldy);
    default: return gemm_by_rows(k, w, r0, r1, a, y, ldy);
  }
}

}  // namespace tok::model

#endif
