// Activations quantized as ggml's q8_K (256-value blocks, one float scale
// each, values in -127..127) for the K-quant prefill tiles: Q2_K to Q6_K
// weights times a batch of tokens become integer dot products, as llama.cpp
// computes them (ggml_vec_dot_q4_K_q8_K / q6_K_q8_K / ...), instead of float
// products with decoded weights. The values are kept widened to int16 (the
// Q2_K, Q3_K and Q6_K tiles multiply them with int16 weights, quant times
// sub-block scale, by vpdpwssd) and as bytes (the Q4_K and Q5_K tiles, by
// vpdpbusd with the nibbles).
#pragma once

#include <cstdint>
#include <vector>

#include "model/kernels.hpp"

namespace tok::model {

struct ActQ8K {
  std::int64_t n = 0, cols = 0;
  std::vector<std::int16_t> q;  // (n, cols) the q8_K values
  std::vector<std::int8_t> q8;  // (n, cols) the same values as bytes: the Q4_K byte tiles
  std::vector<float> d;         // (n, cols / 256) block scales
  std::vector<float> sums;      // (n, cols / 32) d * (sum of each 32 values): Q4_K's min terms
  std::vector<float> sums16;    // (n, cols / 16) d * (sum of each 16 values): Q2_K's min terms
};

// Rows x[t * x_stride ...] for t < n (cols a multiple of 256) into out, with
// ggml's quantize_row_q8_K_ref rounding: scale -127 / (the value of largest
// magnitude), values rounded to nearest (ties to even) and capped at 127.
void quantize_act_q8_k(const float* x, std::int64_t x_stride, std::int64_t n, std::int64_t cols,
                       ActQ8K& out);

// One row of n values (a multiple of 256) as ggml's block_q8_K, with the
// same rounding: the activations of the Q4_K / Q6_K decode kernels.
void quantize_row_q8_k(const float* x, ggml::BlockQ8_K* y, std::int64_t n);

// quantize_act_q8_k in two steps, so that threads can share the second:
// out sized for n rows of cols, then rows [t0, t1) of x quantized into it.
void resize_act_q8_k(std::int64_t n, std::int64_t cols, ActQ8K& out);
void quantize_act_q8_k_rows(const DotKernels& k, const float* x, std::int64_t x_stride,
                            std::int64_t t0, std::int64_t t1, ActQ8K& out);

// The same two with the kernel set's block quantizers where it has them
// (bit for bit the same results).
void quantize_act_q8_k(const DotKernels& k, const float* x, std::int64_t x_stride, std::int64_t n,
                       std::int64_t cols, ActQ8K& out);
void quantize_row_q8_k(const DotKernels& k, const float* x, ggml::BlockQ8_K* y, std::int64_t n);

// Does a product of this many tokens with weights of type t go through q8_K
// activations with these kernels? (AVX-512 VNNI, Q2_K to Q6_K, several
// tokens; one token at a time, wants_q8_k_rows says which take Q8_K blocks.)
bool wants_q8_k(const DotKernels& k, DType t, std::int64_t n);

}  // namespace tok::model
