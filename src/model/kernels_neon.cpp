// AArch64 Advanced SIMD (NEON) kernels for the model's hot dot products:
// F32, F16, BF16, Q8_0, Q4_0 and Q4_K. Only ARMv8.0 instructions, so no
// compile flag and no run-time check: NEON is part of the AArch64 base ISA.
// (The ARMv8.2 dot-product instruction SDOT would be faster for Q8_0/Q4_0 but
// needs a CPU check; the widening multiplies here run on every AArch64 CPU.)
//
// Q8_0 / Q4_0 sum each block's integer products exactly and then add
// d_w * d_x * sum in block order, as the scalar kernels do, so they give the
// scalar results bit for bit. Q6_K, the activation quantizer (which must
// agree with ggml's bit for bit) and gemm are the scalar ones.
#include "model/kernels.hpp"

#include "ggml/half.hpp"
#include "model/act_q8_0.hpp"

#if defined(__aarch64__)
#include <arm_neon.h>

namespace tok::model {
namespace {

float dot_f32(const float* w, const float* x, std::int64_t n) {
  // Four accumulators hide the latency of the fused multiply-add.
  float32x4_t a0 = vdupq_n_f32(0), a1 = a0, a2 = a0, a3 = a0;
  std::int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    a0 = vfmaq_f32(a0, vld1q_f32(w + i), vld1q_f32(x + i));
    a1 = vfmaq_f32(a1, vld1q_f32(w + i + 4), vld1q_f32(x + i + 4));
    a2 = vfmaq_f32(a2, vld1q_f32(w + i + 8), vld1q_f32(x + i + 8));
    a3 = vfmaq_f32(a3, vld1q_f32(w + i + 12), vld1q_f32(x + i + 12));
  }
  for (; i + 4 <= n; i += 4) a0 = vfmaq_f32(a0, vld1q_f32(w + i), vld1q_f32(x + i));
  float s = vaddvq_f32(vaddq_f32(vaddq_f32(a0, a1), vaddq_f32(a2, a3)));
  for (; i < n; ++i) s += w[i] * x[i];
  return s;
}

// Four halves (fp16 or bf16) to floats.
inline float32x4_t load_f16(const std::uint16_t* p) {
  return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(p)));
}
inline float32x4_t load_bf16(const std::uint16_t* p) {
  return vreinterpretq_f32_u32(vshll_n_u16(vld1_u16(p), 16));
}

template <float32x4_t (*Load)(const std::uint16_t*), float (*One)(std::uint16_t)>
float dot_half(const std::uint16_t* w, const float* x, std::int64_t n) {
  float32x4_t a0 = vdupq_n_f32(0), a1 = a0;
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    a0 = vfmaq_f32(a0, Load(w + i), vld1q_f32(x + i));
    a1 = vfmaq_f32(a1, Load(w + i + 4), vld1q_f32(x + i + 4));
  }
  float s = vaddvq_f32(vaddq_f32(a0, a1));
  for (; i < n; ++i) s += One(w[i]) * x[i];
  return s;
}

// Sum of the 16 products a[i] * b[i] of signed bytes, added to acc (exact:
// each product fits in 16 bits, pairs are added in 32).
inline int32x4_t dot16(int32x4_t acc, int8x16_t a, int8x16_t b) {
  acc = vpadalq_s16(acc, vmull_s8(vget_low_s8(a), vget_low_s8(b)));
  return vpadalq_s16(acc, vmull_high_s8(a, b));
}

float dot_q8_0(const ggml::BlockQ8_0* w, const ggml::BlockQ8_0* x, std::int64_t n) {
  float s = 0;
  for (std::int64_t b = 0; b < n / ggml::kQK; ++b) {
    int32x4_t acc = vdupq_n_s32(0);
    acc = dot16(acc, vld1q_s8(w[b].qs), vld1q_s8(x[b].qs));
    acc = dot16(acc, vld1q_s8(w[b].qs + 16), vld1q_s8(x[b].qs + 16));
    s +=
        ggml::fp16_to_f32(w[b].d) * ggml::fp16_to_f32(x[b].d) * static_cast<float>(vaddvq_s32(acc));
  }
  return s;
}

float dot_q4_0(const ggml::BlockQ4_0* w, const ggml::BlockQ8_0* x, std::int64_t n) {
  const uint8x16_t low = vdupq_n_u8(0x0F);
  const int8x16_t eight = vdupq_n_s8(8);
  float s = 0;
  for (std::int64_t b = 0; b < n / ggml::kQK; ++b) {
    uint8x16_t q = vld1q_u8(w[b].qs);
    int8x16_t lo = vsubq_s8(vreinterpretq_s8_u8(vandq_u8(q, low)), eight);  // elements 0..15
    int8x16_t hi = vsubq_s8(vreinterpretq_s8_u8(vshrq_n_u8(q, 4)), eight);  // elements 16..31
    int32x4_t acc = dot16(vdupq_n_s32(0), lo, vld1q_s8(x[b].qs));
    acc = dot16(acc, hi, vld1q_s8(x[b].qs + 16));
    s +=
        ggml::fp16_to_f32(w[b].d) * ggml::fp16_to_f32(x[b].d) * static_cast<float>(vaddvq_s32(acc));
  }
  return s;
}

// acc += (d * q - m) . x for 16 small unsigned q (nibbles) and 16 floats x.
inline float32x4_t fma_nibbles(float32x4_t acc, uint8x16_t q, float d, float m, const float* x) {
  const float32x4_t dv = vdupq_n_f32(d), mv = vdupq_n_f32(m);
  uint16x8_t h[2] = {vmovl_u8(vget_low_u8(q)), vmovl_high_u8(q)};
  for (int k = 0; k < 2; ++k) {
    float32x4_t v0 = vcvtq_f32_u32(vmovl_u16(vget_low_u16(h[k])));
    float32x4_t v1 = vcvtq_f32_u32(vmovl_high_u16(h[k]));
    acc = vfmaq_f32(acc, vsubq_f32(vmulq_f32(dv, v0), mv), vld1q_f32(x + 8 * k));
    acc = vfmaq_f32(acc, vsubq_f32(vmulq_f32(dv, v1), mv), vld1q_f32(x + 8 * k + 4));
  }
  return acc;
}

// Q4_K: each 32-element sub-block is d * sc * q - dmin * m (q a nibble), the
// formula of dequantize_row, vectorized; no dequantized buffer.
float dot_q4_k(const ggml::BlockQ4_K* w, const float* x, std::int64_t n) {
  const uint8x16_t low = vdupq_n_u8(0x0F);
  float32x4_t acc = vdupq_n_f32(0);
  for (std::int64_t b = 0; b < n / ggml::kQKK; ++b, x += ggml::kQKK) {
    float d = ggml::fp16_to_f32(w[b].d), dmin = ggml::fp16_to_f32(w[b].dmin);
    const std::uint8_t* q = w[b].qs;
    for (int j = 0; j < ggml::kQKK / 64; ++j, q += 32) {
      std::uint8_t sc[2], m[2];
      for (int h = 0; h < 2; ++h) ggml::scale_min_k4(2 * j + h, w[b].scales, sc[h], m[h]);
      const float* xs = x + 64 * j;
      for (int l = 0; l < 32; l += 16) {
        uint8x16_t v = vld1q_u8(q + l);
        acc = fma_nibbles(acc, vandq_u8(v, low), d * sc[0], dmin * m[0], xs + l);
        acc = fma_nibbles(acc, vshrq_n_u8(v, 4), d * sc[1], dmin * m[1], xs + 32 + l);
      }
    }
  }
  return vaddvq_f32(acc);
}

float dot_q6_k(const ggml::BlockQ6_K* w, const float* x, std::int64_t n) {
  return scalar_kernels().q6_k(w, x, n);
}

const DotKernels kNeon{Isa::kNeon,
                       dot_f32,
                       dot_half<load_f16, ggml::fp16_to_f32>,
                       dot_half<load_bf16, ggml::bf16_to_f32>,
                       dot_q8_0,
                       dot_q4_0,
                       dot_q4_k,
                       dot_q6_k,
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
                       nullptr,  // Q2_K / Q3_K / Q5_K: the Q8_0 kernels serve
                       nullptr,
                       nullptr,
                       nullptr,  // q8_K activations: act_q8_k.cpp's loops
                       nullptr};

}  // namespace

const DotKernels* neon_kernels() { return &kNeon; }

}  // namespace tok::model

#else
namespace tok::model {
const DotKernels* neon_kernels() { return nullptr; }
}  // namespace tok::model
#endif
