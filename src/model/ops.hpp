// Element-wise and row operations of the transformer forward pass, in plain
// C++ (the compiler vectorises them; they are a small share of the time next
// to the matrix products in kernels.hpp).
#pragma once

#include <cstdint>

namespace tok::model {

// out = x / sqrt(mean(x^2) + eps) * w   (out may alias x)
void rmsnorm(float* out, const float* x, const float* w, std::int64_t n, float eps);
// In-place softmax over n values.
void softmax(float* x, std::int64_t n);
// Rotary position embedding of one head vector of head_dim values at
// position pos. neox = false rotates adjacent pairs (x[2i], x[2i+1]) (llama);
// true rotates (x[i], x[i + head_dim/2]) (qwen2, GPT-NeoX). inv_freq: (head_dim/2)
void rope(float* x, std::int64_t head_dim, std::int64_t pos, const float* inv_freq, bool neox);
// The same rotation with its cos and sin given (head_dim / 2 each, as rope
// computes them): rope_angles fills them for one position.
void rope_cs(float* x, std::int64_t head_dim, const float* cos, const float* sin, bool neox);
void rope_angles(std::int64_t head_dim, std::int64_t pos, const float* inv_freq, float* cos,
                 float* sin);
// a = silu(a) * b   (SwiGLU)
void swiglu(float* a, const float* b, std::int64_t n);
// a = gelu(a) * b, GELU in its tanh form (GeGLU: gemma3)
void geglu(float* a, const float* b, std::int64_t n);
// y *= s
void scale(float* y, float s, std::int64_t n);
// y += x
void add(float* y, const float* x, std::int64_t n);
// Are all n values finite (no NaN, no infinity)? By the exponent bits, so
// that no compiler flag can fold the test away; a pass over n floats.
bool all_finite(const float* x, std::int64_t n);
// Does x hold a NaN (else an infinity, where all_finite is false)?
bool has_nan(const float* x, std::int64_t n);

}  // namespace tok::model
