// Activations quantized to Q8_0 as ggml's SIMD quantize_row_q8_0 does (scale
// 127 / max|x|, round half to even), not as the reference rule stored data
// uses (ggml::quantize_row_q8_0): llama.cpp quantizes activations this way
// at run time, and matching it bit for bit keeps Q8_0 / Q4_0 models on
// llama.cpp's greedy tokens. The AVX2 kernel agrees bit for bit.
#pragma once

#include <cstdint>

#include "ggml/blocks.hpp"

namespace tok::model {

// x: n floats (a multiple of 32); y: n / 32 blocks.
void quantize_act_q8_0(const float* x, ggml::BlockQ8_0* y, std::int64_t n);

}  // namespace tok::model
