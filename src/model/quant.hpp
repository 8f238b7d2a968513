// The model's view of ggml's block formats: the shared block structs, fp16 /
// bf16 conversion and reference (de)quantizers (ggml/), named in
// tok::model, plus what only inference needs: quantizing activations the way
// llama.cpp's CPU backend does. The SIMD kernels in kernels_*.cpp must agree
// with the reference code; the unit tests check that they do.
#pragma once

#include <cstdint>

#include "ggml/blocks.hpp"
#include "ggml/half.hpp"
#include "ggml/quants.hpp"
#include "model/tensor.hpp"

namespace tok::model {

using ggml::bf16_to_f32;
using ggml::BlockQ2_K;
using ggml::BlockQ3_K;
using ggml::BlockQ4_0;
using ggml::BlockQ4_1;
using ggml::BlockQ4_K;
using ggml::BlockQ5_0;
using ggml::BlockQ5_1;
using ggml::BlockQ5_K;
using ggml::BlockQ6_K;
using ggml::BlockQ8_0;
using ggml::BlockQ8_K;
using ggml::f32_to_bf16;
using ggml::f32_to_fp16;
using ggml::fp16_to_f32;
using ggml::kQK;
using ggml::kQKK;
using ggml::quantize_row_q4_0;
using ggml::quantize_row_q8_0;
using ggml::scale_min_k4;

// Dequantizes one row of n elements (n a multiple of the block size) of a
// type tok computes with (ggml::is_computable).
inline void dequantize_row(DType type, const void* src, float* dst, std::int64_t n) {
  ggml::traits(type).to_float(src, dst, n);
}

// Activations to Q8_0 as ggml's SIMD quantize_row_q8_0 does (scale
// 127 / max|x|, round half to even), not as the reference rule stored data
// uses: llama.cpp quantizes activations this way at run time, and matching
// it bit for bit keeps Q8_0 / Q4_0 models on llama.cpp's greedy tokens. The
// AVX2 kernel agrees bit for bit.
void quantize_act_q8_0(const float* x, BlockQ8_0* y, std::int64_t n);

}  // namespace tok::model
