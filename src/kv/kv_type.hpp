// Storage types of KV rows (--kv-type): f32, f16, and ggml's block formats
// q8_0 and q4_0. A row of n floats (n = kv_heads * head_dim) is stored as
// row_bytes(type, n) bytes; q8_0/q4_0 need n to be a multiple of 32.
//
//   q8_0: 32 values -> f16 scale d + 32 int8 q; x ~ q * d   (34 bytes)
//   q4_0: 32 values -> f16 scale d + 16 bytes of nibbles; x ~ (q - 8) * d (18 bytes)
//
// Layouts are bit-compatible with ggml (block_q8_0, block_q4_0), so a
// later GPU or SIMD kernel can read them directly. Error bounds are derived
// in quantize.cpp and tested in tests/kv/quantize_test.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace tok::kv {

enum class KvType : std::uint8_t { kF32, kF16, kQ8_0, kQ4_0 };

inline constexpr int kQuantBlock = 32;  // values per q8_0 / q4_0 block
inline constexpr std::size_t kQ8_0Bytes = 34;
inline constexpr std::size_t kQ4_0Bytes = 18;

Result<KvType> parse_kv_type(std::string_view s);
std::string_view kv_type_name(KvType t);
bool is_quantized(KvType t);

// Bytes one row of n values takes; an error when a block type does not divide n.
Result<std::size_t> row_bytes(KvType t, int n);

// Encode n floats into dst (row_bytes(t, n) bytes) and back. n must be valid for t.
void quantize_row(KvType t, const float* src, int n, std::uint8_t* dst);
void dequantize_row(KvType t, const std::uint8_t* src, int n, float* dst);

}  // namespace tok::kv
