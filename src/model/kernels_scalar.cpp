// Portable reference kernels: the definition of what every SIMD kernel computes.
#include <cmath>
#include <cstdlib>
#include <vector>

#include "ggml/half.hpp"
#include "model/act_q8_0.hpp"
#include "model/kernels.hpp"
#include "model/repack.hpp"

namespace tok::model {
namespace {

float dot_f32(const float* w, const float* x, std::int64_t n) {
  float s = 0;
  for (std::int64_t i = 0; i < n; ++i) s += w[i] * x[i];
  return s;
}

float dot_f16(const std::uint16_t* w, const float* x, std::int64_t n) {
  float s = 0;
  for (std::int64_t i = 0; i < n; ++i) s += ggml::fp16_to_f32(w[i]) * x[i];
  return s;
}

float dot_bf16(const std::uint16_t* w, const float* x, std::int64_t n) {
  float s = 0;
  for (std::int64_t i = 0; i < n; ++i) s += ggml::bf16_to_f32(w[i]) * x[i];
  return s;
}

float dot_q8_0(const ggml::BlockQ8_0* w, const ggml::BlockQ8_0* x, std::int64_t n) {
  float s = 0;
  for (std::int64_t b = 0; b < n / ggml::kQK; ++b) {
    int acc = 0;
    for (int j = 0; j < ggml::kQK; ++j) acc += w[b].qs[j] * x[b].qs[j];
    s += ggml::fp16_to_f32(w[b].d) * ggml::fp16_to_f32(x[b].d) * static_cast<float>(acc);
  }
  return s;
}

float dot_q4_0(const ggml::BlockQ4_0* w, const ggml::BlockQ8_0* x, std::int64_t n) {
  float s = 0;
  for (std::int64_t b = 0; b < n / ggml::kQK; ++b) {
    int acc = 0;
    for (int j = 0; j < ggml::kQK / 2; ++j) {
      acc += ((w[b].qs[j] & 0xF) - 8) * x[b].qs[j];
      acc += ((w[b].qs[j] >> 4) - 8) * x[b].qs[j + ggml::kQK / 2];
    }
    s += ggml::fp16_to_f32(w[b].d) * ggml::fp16_to_f32(x[b].d) * static_cast<float>(acc);
  }
  return s;
}

// Q4_K and Q6_K have no scalar kernel of their own: reference dequantization
// is the definition.
template <class Block, DType kType>
float dot_k(const Block* w, const float* x, std::int64_t n) {
  return dot_by_dequant<dot_f32>(ggml::traits(kType), w, x, n);
}

constexpr DotKernels kScalar{Isa::kScalar,
                             dot_f32,
                             dot_f16,
                             dot_bf16,
                             dot_q8_0,
                             dot_q4_0,
                             dot_k<ggml::BlockQ4_K, DType::kQ4_K>,
                             dot_k<ggml::BlockQ6_K, DType::kQ6_K>,
                             quantize_act_q8_0,
                             gemm_by_rows,
                             dot_by_dequant<dot_f32>,
                             scalar::dot_q4_1,
                             scalar::dot_q5_0,
                             scalar::dot_q5_1,
                             scalar::dot_q2_k,
                             scalar::dot_q3_k,
                             scalar::dot_q5_k,
                             nullptr,  // Q4_K / Q6_K on Q8_K: the float kernels serve
                             nullptr,
                             scalar::dot_q2_k_q8k,
                             scalar::dot_q3_k_q8k,
                             scalar::dot_q5_k_q8k,
                             nullptr,  // q8_K activations: act_q8_k.cpp's loops
                             nullptr};

}  // namespace

const DotKernels& scalar_kernels() { return kScalar; }

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::kAvx512Vnni: return "avx512-vnni";
    case Isa::kAvx2: return "avx2";
    case Isa::kNeon: return "neon";
    case Isa::kScalar: break;
  }
  return "scalar";
}

const DotKernels& best_kernels() {
  static const DotKernels* best = [] {
    if (std::getenv("TOK_NO_SIMD")) return &kScalar;
    const DotKernels* avx512 = std::getenv("TOK_NO_AVX512") ? nullptr : avx512_kernels();
    const DotKernels* avx2 = avx2_kernels();
    const DotKernels* neon = neon_kernels();
    return avx512 ? avx512 : avx2 ? avx2 : neon ? neon : &kScalar;
  }();
  return *best;
}

void gemm_by_rows(const DotKernels& k, const TensorView& w, std::int64_t r0, std::int64_t r1,
                  const ActBatch& a, float* y, std::int64_t ldy) {
  for (std::int64_t r = r0; r < r1; ++r) {
    for (std::int64_t t = 0; t < a.n; ++t) {
      Activation act{a.x + t * a.x_stride, a.xq ? a.xq + t * a.xq_stride : nullptr,
                     a.xk8 ? a.xk8 + t * a.xk8_stride : nullptr};
      y[t * ldy + r] = dot_row(k, w, r, act);
    }
  }
}

float dot_row(const DotKernels& k, const TensorView& w, std::int64_t r, const Activation& a) {
  const void* row = w.row(r);
  std::int64_t n = w.cols;
  if (r < q4_0x4_grouped_rows(w)) {  // the row back in Q4_0 blocks (model/repack.hpp)
    std::vector<ggml::BlockQ4_0> blocks(static_cast<std::size_t>(n / ggml::kQK));
    unpack_row_q4_0x4(w, r, blocks.data());
    return k.q4_0(blocks.data(), a.xq, n);
  }
  std::vector<std::uint8_t> plain;  // likewise, Q4_K / Q6_K rows in groups of sixteen
  if (r < q4_kx16_grouped_rows(w) || r < q6_kx16_grouped_rows(w)) {
    plain.resize(w.row_bytes());
    if (w.q4_kx16)
      unpack_row_q4_kx16(w, r, reinterpret_cast<ggml::BlockQ4_K*>(plain.data()));
    else
      unpack_row_q6_kx16(w, r, reinterpret_cast<ggml::BlockQ6_K*>(plain.data()));
    row = plain.data();
  }
  switch (w.type) {
    case DType::kF32: return k.f32(static_cast<const float*>(row), a.x, n);
    case DType::kF16: return k.f16(static_cast<const std::uint16_t*>(row), a.x, n);
    case DType::kBF16: return k.bf16(static_cast<const std::uint16_t*>(row), a.x, n);
    case DType::kQ8_0: return k.q8_0(static_cast<const ggml::BlockQ8_0*>(row), a.xq, n);
    case DType::kQ4_0: return k.q4_0(static_cast<const ggml::BlockQ4_0*>(row), a.xq, n);
    case DType::kQ4_K:
      if (a.xk8 && k.q4_k_q8k)
        return k.q4_k_q8k(static_cast<const ggml::BlockQ4_K*>(row), a.xk8, n);
      return k.q4_k(static_cast<const ggml::BlockQ4_K*>(row), a.x, n);
    case DType::kQ6_K:
      if (a.xk8 && k.q6_k_q8k)
        return k.q6_k_q8k(static_cast<const ggml::BlockQ6_K*>(row), a.xk8, n);
      return k.q6_k(static_cast<const ggml::BlockQ6_K*>(row), a.x, n);
    case DType::kQ4_1: return k.q4_1(static_cast<const ggml::BlockQ4_1*>(row), a.xq, n);
    case DType::kQ5_0: return k.q5_0(static_cast<const ggml::BlockQ5_0*>(row), a.xq, n);
    case DType::kQ5_1: return k.q5_1(static_cast<const ggml::BlockQ5_1*>(row), a.xq, n);
    case DType::kQ2_K:
      if (a.xk8 && k.q2_k_q8k)
        return k.q2_k_q8k(static_cast<const ggml::BlockQ2_K*>(row), a.xk8, n);
      return k.q2_k(static_cast<const ggml::BlockQ2_K*>(row), a.xq, n);
    case DType::kQ3_K:
      if (a.xk8 && k.q3_k_q8k)
        return k.q3_k_q8k(static_cast<const ggml::BlockQ3_K*>(row), a.xk8, n);
      return k.q3_k(static_cast<const ggml::BlockQ3_K*>(row), a.xq, n);
    case DType::kQ5_K:
      if (a.xk8 && k.q5_k_q8k)
        return k.q5_k_q8k(static_cast<const ggml::BlockQ5_K*>(row), a.xk8, n);
      return k.q5_k(static_cast<const ggml::BlockQ5_K*>(row), a.xq, n);
    default: return k.dequant_dot(ggml::traits(w.type), row, a.x, n);
  }
}

}  // namespace tok::model
