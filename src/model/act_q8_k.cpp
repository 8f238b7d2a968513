#include "model/act_q8_k.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace tok::model {
namespace {

// ggml's nearest_int: round to nearest, ties to even, for |v| < 2^22.
inline int nearest_int(float v) {
  float f = v + 12582912.f;
  std::int32_t i;
  std::memcpy(&i, &f, sizeof i);
  return (i & 0x007fffff) - 0x00400000;
}

// The value of largest magnitude in x[0, kQKK) (the first on ties).
float signed_max(const float* x) {
  float max = 0, amax = 0;
  for (int i = 0; i < ggml::kQKK; ++i) {
    float a = std::fabs(x[i]);
    if (a > amax) amax = a, max = x[i];
  }
  return max;
}

void quantize_block(const float* x, std::int16_t* q, float* d_out, float* sums) {
  float& d = *d_out;
  const float max = signed_max(x);
  if (max == 0) {
    d = 0;
    std::memset(q, 0, ggml::kQKK * sizeof *q);
    for (int b = 0; b < ggml::kQKK / ggml::kQK; ++b) sums[b] = 0;
    return;
  }
  const float iscale = -127.f / max;
  for (int i = 0; i < ggml::kQKK; ++i)
    q[i] = static_cast<std::int16_t>(std::min(127, nearest_int(iscale * x[i])));
  d = 1 / iscale;
  for (int b = 0; b < ggml::kQKK / ggml::kQK; ++b) {
    int s = 0;
    for (int i = 0; i < ggml::kQK; ++i) s += q[b * ggml::kQK + i];
    sums[b] = d * static_cast<float>(s);
  }
}

void quantize_block_q8_k(const float* x, ggml::BlockQ8_K* y) {
  ggml::BlockQ8_K& out = *y;
  const float max = signed_max(x);
  if (max == 0) {
    std::memset(&out, 0, sizeof out);
    return;
  }
  const float iscale = -127.f / max;
  for (int i = 0; i < ggml::kQKK; ++i)
    out.qs[i] = static_cast<std::int8_t>(std::min(127, nearest_int(iscale * x[i])));
  for (int j = 0; j < ggml::kQKK / 16; ++j) {
    int s = 0;
    for (int i = 0; i < 16; ++i) s += out.qs[16 * j + i];
    out.bsums[j] = static_cast<std::int16_t>(s);
  }
  out.d = 1 / iscale;
}

}  // namespace

void resize_act_q8_k(std::int64_t n, std::int64_t cols, ActQ8K& out) {
  out.n = n;
  out.cols = cols;
  out.q.resize(static_cast<std::size_t>(n * cols));
  out.q8.resize(static_cast<std::size_t>(n * cols));
  out.d.resize(static_cast<std::size_t>(n * (cols / ggml::kQKK)));
  out.sums.resize(static_cast<std::size_t>(n * cols / ggml::kQK));
  out.sums16.resize(static_cast<std::size_t>(n * cols / 16));
}

void quantize_act_q8_k_rows(const DotKernels& k, const float* x, std::int64_t x_stride,
                            std::int64_t t0, std::int64_t t1, ActQ8K& out) {
  const std::int64_t cols = out.cols, nb = cols / ggml::kQKK;
  auto* block = k.q8_k_block16 ? k.q8_k_block16 : quantize_block;
  for (std::int64_t t = t0; t < t1; ++t) {
    for (std::int64_t b = 0; b < nb; ++b) {
      std::int64_t i = t * cols + b * ggml::kQKK;
      block(x + t * x_stride + b * ggml::kQKK, out.q.data() + i,
            &out.d[static_cast<std::size_t>(t * nb + b)], out.sums.data() + i / ggml::kQK);
    }
    // Values are in -127..127 (the quantizer caps them): the bytes are exact.
    std::transform(out.q.begin() + t * cols, out.q.begin() + (t + 1) * cols,
                   out.q8.begin() + t * cols,
                   [](std::int16_t v) { return static_cast<std::int8_t>(v); });
    for (std::int64_t i = t * cols / 16; i < (t + 1) * cols / 16; ++i) {
      int s = 0;
      for (int l = 0; l < 16; ++l) s += out.q[static_cast<std::size_t>(16 * i + l)];
      out.sums16[static_cast<std::size_t>(i)] =
          out.d[static_cast<std::size_t>(16 * i / ggml::kQKK)] * static_cast<float>(s);
    }
  }
}

void quantize_act_q8_k(const DotKernels& k, const float* x, std::int64_t x_stride, std::int64_t n,
                       std::int64_t cols, ActQ8K& out) {
  resize_act_q8_k(n, cols, out);
  quantize_act_q8_k_rows(k, x, x_stride, 0, n, out);
}

void quantize_act_q8_k(const float* x, std::int64_t x_stride, std::int64_t n, std::int64_t cols,
                       ActQ8K& out) {
  quantize_act_q8_k(scalar_kernels(), x, x_stride, n, cols, out);
}

void quantize_row_q8_k(const DotKernels& k, const float* x, ggml::BlockQ8_K* y, std::int64_t n) {
  auto* block = k.q8_k_block ? k.q8_k_block : quantize_block_q8_k;
  for (std::int64_t b = 0; b < n / ggml::kQKK; ++b) block(x + b * ggml::kQKK, y + b);
}

void quantize_row_q8_k(const float* x, ggml::BlockQ8_K* y, std::int64_t n) {
  quantize_row_q8_k(scalar_kernels(), x, y, n);
}

bool wants_q8_k(const DotKernels& k, DType t, std::int64_t n) {
  return k.isa == Isa::kAvx512Vnni &&
         (t == DType::kQ2_K || t == DType::kQ3_K || t == DType::kQ4_K || t == DType::kQ5_K ||
          t == DType::kQ6_K) &&
         n >= kKQuantTileMinTokens;
}

}  // namespace tok::model
