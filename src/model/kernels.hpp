// Dot-product kernels, one per weight type, chosen once at run time: AVX-512
// VNNI for Q8_0 / Q4_0 (AVX2 for the rest) when the CPU has it, else AVX2+FMA
// (+F16C) when the CPU has them (__builtin_cpu_supports; only the kernel
// files are compiled with the ISA flags, so the binary still runs on any
// x86-64), else portable scalar code. On AArch64 the NEON kernels
// (kernels_neon.cpp; NEON is in the base ISA, so no check). Matrix-vector and
// matrix-matrix products are loops over these.
//
// Q8_0 and Q4_0 weights are multiplied with activations quantized to Q8_0
// blocks (integer dot products, as llama.cpp does); every other type is
// multiplied with the float activations (K-quants dequantize a super-block
// at a time, then dot).
//
// `gemm` multiplies a range of weight rows with a batch of activations. The
// AVX2 version works on register tiles (several rows x several tokens), so a
// weight block loaded once serves several tokens (prefill) and an activation
// block loaded once serves several rows (decode).
#pragma once

#include <cstdint>
#include <vector>

#include "model/quant.hpp"
#include "model/tensor.hpp"

namespace tok::model {

enum class Isa { kScalar, kAvx2, kAvx512Vnni, kNeon };

struct DotKernels;

// n activation rows: the floats (row stride x_stride floats) and, for Q8_0 /
// Q4_0 weights, their Q8_0 blocks (row stride xq_stride blocks).
struct ActBatch {
  const float* x = nullptr;
  std::int64_t x_stride = 0;
  const BlockQ8_0* xq = nullptr;
  std::int64_t xq_stride = 0;
  std::int64_t n = 0;
};

// y[t * ldy + r] = (row r of w) . (activation t), for r0 <= r < r1, t < a.n.
using GemmFn = void (*)(const DotKernels& k, const TensorView& w, std::int64_t r0, std::int64_t r1,
                        const ActBatch& a, float* y, std::int64_t ldy);

struct DotKernels {
  Isa isa;
  float (*f32)(const float* w, const float* x, std::int64_t n);
  float (*f16)(const std::uint16_t* w, const float* x, std::int64_t n);
  float (*bf16)(const std::uint16_t* w, const float* x, std::int64_t n);
  float (*q8_0)(const BlockQ8_0* w, const BlockQ8_0* x, std::int64_t n);
  float (*q4_0)(const BlockQ4_0* w, const BlockQ8_0* x, std::int64_t n);
  float (*q4_k)(const BlockQ4_K* w, const float* x, std::int64_t n);
  float (*q6_k)(const BlockQ6_K* w, const float* x, std::int64_t n);
  // Activations to Q8_0 the way ggml's SIMD quantize_row_q8_0 does it
  // (scale 127 / max|x|, round half to even), so that Q8_0 models give
  // llama.cpp's greedy tokens; scalar and AVX2 versions agree bit for bit.
  void (*quantize_q8_0)(const float* x, BlockQ8_0* y, std::int64_t n);
  GemmFn gemm;
};

// The best kernels this CPU supports (kScalar when TOK_NO_SIMD is set, at
// most kAvx2 when TOK_NO_AVX512 is set).
const DotKernels& best_kernels();
const DotKernels& scalar_kernels();
// nullptr when the CPU lacks AVX2/FMA/F16C.
const DotKernels* avx2_kernels();
// nullptr when the CPU also lacks AVX-512 F/BW/VL/VNNI.
const DotKernels* avx512_kernels();
// nullptr except on AArch64.
const DotKernels* neon_kernels();

// An activation vector in the form the weight type wants: the floats, and
// their Q8_0 blocks when the weight is Q8_0 / Q4_0.
struct Activation {
  const float* x = nullptr;         // (n)
  const BlockQ8_0* xq = nullptr;    // (n / 32) or null
};

// Does multiplying by weights of this type want Q8_0 activations?
inline bool wants_q8(DType t) { return t == DType::kQ8_0 || t == DType::kQ4_0; }

// Dot product of row r of w with the activation.
float dot_row(const DotKernels& k, const TensorView& w, std::int64_t r, const Activation& a);

// GemmFn as a loop over dot_row: the scalar kernels' gemm, and the AVX2
// kernels' fallback for types without tiles.
void gemm_by_rows(const DotKernels& k, const TensorView& w, std::int64_t r0, std::int64_t r1,
                  const ActBatch& a, float* y, std::int64_t ldy);

}  // namespace tok::model
