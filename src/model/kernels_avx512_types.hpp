// The AVX-512 VNNI kernels of the Q8_0-activation weight types beside Q8_0 /
// Q4_0 (kernels_avx512_types.cpp), and of Q2_K / Q3_K / Q5_K on Q8_K, for
// kernels_avx512.cpp's table. Callable only where avx512_kernels() is not
// null.
#pragma once

#include <cstdint>

#include "ggml/blocks.hpp"

namespace tok::model::avx512 {

float dot_q4_1(const ggml::BlockQ4_1* w, const ggml::BlockQ8_0* x, std::int64_t n);
float dot_q5_0(const ggml::BlockQ5_0* w, const ggml::BlockQ8_0* x, std::int64_t n);
float dot_q5_1(const ggml::BlockQ5_1* w, const ggml::BlockQ8_0* x, std::int64_t n);
float dot_q2_k(const ggml::BlockQ2_K* w, const ggml::BlockQ8_0* x, std::int64_t n);
float dot_q3_k(const ggml::BlockQ3_K* w, const ggml::BlockQ8_0* x, std::int64_t n);
float dot_q5_k(const ggml::BlockQ5_K* w, const ggml::BlockQ8_0* x, std::int64_t n);

// kernels_avx512_k_q8k.cpp: Q2_K, Q3_K and Q5_K on Q8_K activations (decode).
float dot_q2_k_q8k(const ggml::BlockQ2_K* w, const ggml::BlockQ8_K* x, std::int64_t n);
float dot_q3_k_q8k(const ggml::BlockQ3_K* w, const ggml::BlockQ8_K* x, std::int64_t n);
float dot_q5_k_q8k(const ggml::BlockQ5_K* w, const ggml::BlockQ8_K* x, std::int64_t n);

}  // namespace tok::model::avx512
