// The Q4_0 decode kernel that needs AVX-512 VBMI (kernels_avx512_vbmi.cpp),
// apart from the other AVX-512 kernels so that only its file is compiled
// with -mavx512vbmi.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ggml/blocks.hpp"

namespace tok::model {

// How far ahead of the weights being read the AVX-512 decode kernels
// prefetch (kernels_avx512.cpp says why and what was measured).
inline constexpr std::size_t kDecodePrefetchBytes = 8192;

// Whether this CPU can run q4_0_decode_vbmi (AVX-512 F, BW, VNNI and VBMI).
bool q4_0_decode_vbmi_supported();

// y[r] = (row r of the Q4_0 matrix w, nb blocks, w_row bytes apart) . x (nb
// Q8_0 blocks) for r0 <= r < r1: one token, as kernels_avx512.cpp's decode.
void q4_0_decode_vbmi(const std::uint8_t* w, std::size_t w_row, const ggml::BlockQ8_0* x,
                      std::int64_t nb, std::int64_t r0, std::int64_t r1, float* y);

}  // namespace tok::model
