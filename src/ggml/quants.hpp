// Reference conversions between float rows and ggml's block formats: the
// definition of what every block means (dequantize) and how tok writes one
// (quantize). n is a multiple of the type's block size.
//
// Rounding: every quantizer of stored data (weights written by `tok
// quantize`, KV rows) follows ggml's reference rule (quantize_row_*_ref):
// the scale d is computed in float, values are multiplied by 1/d (exact,
// before d is rounded to fp16) and rounded half away from zero (Q8_0) or
// truncated after adding an offset of one half (Q4_0, Q4_1, Q5_0, Q5_1),
// then clamped to the code range. That is what llama-quantize writes, so a
// file tok quantizes is the file llama.cpp would write, on any machine (no
// SIMD rounding mode involved). The K-quant quantizers are tok's own
// (min/max per sub-block, no iterative search): they only need to make
// valid, reasonable files for tests; loading any K-quant file is exact.
#pragma once

#include <cstdint>

#include "ggml/blocks.hpp"

namespace tok::ggml {

void dequantize_row_q8_0(const BlockQ8_0* x, float* y, std::int64_t n);
void dequantize_row_q4_0(const BlockQ4_0* x, float* y, std::int64_t n);
void dequantize_row_q4_1(const BlockQ4_1* x, float* y, std::int64_t n);
void dequantize_row_q5_0(const BlockQ5_0* x, float* y, std::int64_t n);
void dequantize_row_q5_1(const BlockQ5_1* x, float* y, std::int64_t n);
void dequantize_row_q2_k(const BlockQ2_K* x, float* y, std::int64_t n);
void dequantize_row_q3_k(const BlockQ3_K* x, float* y, std::int64_t n);
void dequantize_row_q4_k(const BlockQ4_K* x, float* y, std::int64_t n);
void dequantize_row_q5_k(const BlockQ5_K* x, float* y, std::int64_t n);
void dequantize_row_q6_k(const BlockQ6_K* x, float* y, std::int64_t n);

void quantize_row_q8_0(const float* x, BlockQ8_0* y, std::int64_t n);
void quantize_row_q4_0(const float* x, BlockQ4_0* y, std::int64_t n);
void quantize_row_q4_1(const float* x, BlockQ4_1* y, std::int64_t n);
void quantize_row_q5_0(const float* x, BlockQ5_0* y, std::int64_t n);
void quantize_row_q5_1(const float* x, BlockQ5_1* y, std::int64_t n);
void quantize_row_q2_k(const float* x, BlockQ2_K* y, std::int64_t n);
void quantize_row_q3_k(const float* x, BlockQ3_K* y, std::int64_t n);
void quantize_row_q4_k(const float* x, BlockQ4_K* y, std::int64_t n);
void quantize_row_q5_k(const float* x, BlockQ5_K* y, std::int64_t n);
void quantize_row_q6_k(const float* x, BlockQ6_K* y, std::int64_t n);

}  // namespace tok::ggml
