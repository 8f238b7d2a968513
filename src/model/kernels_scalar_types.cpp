// Portable reference kernels for Q4_1, Q5_0, Q5_1 (integer dots) and Q2_K,
// Q3_K, Q5_K (reference dequantization, then float dots), all with Q8_0
// activations: the definition of what their SIMD kernels compute.
#include "model/kernels.hpp"

#include "ggml/half.hpp"

namespace tok::model::scalar {
namespace {

// Element j (0..31) of a 32-value block: nibble j (low nibbles are elements
// 0..15, high nibbles 16..31), plus bit j of qh as the 5th bit for Q5_0 /
// Q5_1 (qh is a little-endian uint32).
template <class Block>
int code(const Block& b, int j) {
  int q = j < ggml::kQK / 2 ? b.qs[j] & 0xF : b.qs[j - ggml::kQK / 2] >> 4;
  if constexpr (requires { b.qh; }) q |= ((b.qh[j / 8] >> (j % 8)) & 1) << 4;
  return q;
}

// Q5_0 stores q - 16; Q4_1 and Q5_1 store d * q + m, and
// sum((d q + m) * dx xq) = d dx sum(q xq) + m dx sum(xq): integer sums, then
// two products per block, as llama.cpp's Q8_1 kernels do.
template <class Block>
float dot_small(const Block* w, const ggml::BlockQ8_0* x, std::int64_t n) {
  float s = 0;
  for (std::int64_t b = 0; b < n / ggml::kQK; ++b) {
    int dot = 0, sum = 0;
    for (int j = 0; j < ggml::kQK; ++j) {
      dot += code(w[b], j) * x[b].qs[j];
      sum += x[b].qs[j];
    }
    float d = ggml::fp16_to_f32(w[b].d) * ggml::fp16_to_f32(x[b].d);
    if constexpr (requires { w[b].m; }) {
      s += d * static_cast<float>(dot) +
           ggml::fp16_to_f32(w[b].m) * ggml::fp16_to_f32(x[b].d) * static_cast<float>(sum);
    } else {
      s += d * static_cast<float>(dot - 16 * sum);
    }
  }
  return s;
}

// A K-quant super-block by reference dequantization, then one float sum per
// Q8_0 block times its scale.
template <DType kType, class Block>
float dot_k(const Block* w, const ggml::BlockQ8_0* x, std::int64_t n) {
  float buf[ggml::kQKK];
  float s = 0;
  for (std::int64_t b = 0; b < n / ggml::kQKK; ++b, x += ggml::kQKK / ggml::kQK) {
    dequantize_row(kType, w + b, buf, ggml::kQKK);
    for (int j = 0; j < ggml::kQKK / ggml::kQK; ++j) {
      float t = 0;
      for (int l = 0; l < ggml::kQK; ++l)
        t += buf[ggml::kQK * j + l] * static_cast<float>(x[j].qs[l]);
      s += ggml::fp16_to_f32(x[j].d) * t;
    }
  }
  return s;
}

}  // namespace

float dot_q4_1(const ggml::BlockQ4_1* w, const ggml::BlockQ8_0* x, std::int64_t n) {
  return dot_small(w, x, n);
}
float dot_q5_0(const ggml::BlockQ5_0* w, const ggml::BlockQ8_0* x, std::int64_t n) {
  return dot_small(w, x, n);
}
float dot_q5_1(const ggml::BlockQ5_1* w, const ggml::BlockQ8_0* x, std::int64_t n) {
  return dot_small(w, x, n);
}
float dot_q2_k(const ggml::BlockQ2_K* w, const ggml::BlockQ8_0* x, std::int64_t n) {
  return dot_k<DType::kQ2_K>(w, x, n);
}
float dot_q3_k(const ggml::BlockQ3_K* w, const ggml::BlockQ8_0* x, std::int64_t n) {
  return dot_k<DType::kQ3_K>(w, x, n);
}
float dot_q5_k(const ggml::BlockQ5_K* w, const ggml::BlockQ8_0* x, std::int64_t n) {
  return dot_k<DType::kQ5_K>(w, x, n);
}

}  // namespace tok::model::scalar
