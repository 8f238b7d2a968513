#include "model/attention_kernels.hpp"

#include "model/ops.hpp"

namespace tok::model {
namespace {

void scores_scalar(const float* q, int group, std::int64_t hd, const std::uint8_t* keys,
                   std::size_t key_stride, int n, float scale, float* s, std::size_t s_stride) {
  for (int j = 0; j < n; ++j) {
    const float* key =
        reinterpret_cast<const float*>(keys + static_cast<std::size_t>(j) * key_stride);
    for (int g = 0; g < group; ++g) {
      const float* qg = q + g * hd;
      float d = 0;
      for (std::int64_t i = 0; i < hd; ++i) d += qg[i] * key[i];
      s[static_cast<std::size_t>(g) * s_stride + static_cast<std::size_t>(j)] = d * scale;
    }
  }
}

// 16 outputs at a time held in registers (a loop of out[i] += a * v[i] per
// position reloads and stores out for every position).
void accumulate_head(const float* a, const float* const* v, int n, float* out, std::int64_t hd) {
  constexpr std::int64_t kW = 16;
  std::int64_t i0 = 0;
  for (; i0 + kW <= hd; i0 += kW) {
    float acc[kW];
    for (std::int64_t i = 0; i < kW; ++i) acc[i] = out[i0 + i];
    for (int j = 0; j < n; ++j) {
      const float* vj = v[j] + i0;
      for (std::int64_t i = 0; i < kW; ++i) acc[i] += a[j] * vj[i];
    }
    for (std::int64_t i = 0; i < kW; ++i) out[i0 + i] = acc[i];
  }
  for (; i0 < hd; ++i0) {
    for (int j = 0; j < n; ++j) out[i0] += a[j] * v[j][i0];
  }
}

void accumulate_scalar(const float* a, std::size_t a_stride, int heads, const float* const* v,
                       int n, float* out, std::int64_t hd) {
  for (int h = 0; h < heads; ++h) accumulate_head(a + h * a_stride, v, n, out + h * hd, hd);
}

const AttentionKernels kScalar{scores_scalar, accumulate_scalar, softmax};

}  // namespace

const AttentionKernels& scalar_attention_kernels() { return kScalar; }

const AttentionKernels& attention_kernels(const DotKernels& k) {
  const AttentionKernels* avx512 = avx512_attention_kernels();
  if (k.isa == Isa::kAvx512Vnni && avx512) return *avx512;
  const AttentionKernels* avx2 = avx2_attention_kernels();
  bool simd = k.isa == Isa::kAvx2 || k.isa == Isa::kAvx512Vnni;
  return simd && avx2 ? *avx2 : kScalar;
}

}  // namespace tok::model
