// Storage types of KV rows (--kv-type): f32, f16, and ggml's block formats
// q8_0 and q4_0. A row of n floats (n = kv_heads * head_dim) is stored as
// row_bytes(type, n) bytes; q8_0/q4_0 need n to be a multiple of 32.
//
//   q8_0: 32 values -> f16 scale d + 32 int8 q; x ~ q * d   (34 bytes)
//   q4_0: 32 values -> f16 scale d + 16 bytes of nibbles; x ~ (q - 8) * d (18 bytes)
//
// The types, layouts and conversions are ggml's (ggml/type.hpp, one table
// for the whole program), so a later GPU or SIMD kernel can read the rows
// directly. Error bounds are derived in ggml/quants.cpp and tested in
// tests/kv/quantize_test.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/result.hpp"
#include "ggml/type.hpp"

namespace tok::kv {

// One of f32, f16, q8_0, q4_0 (parse_kv_type accepts no other).
using KvType = ggml::Type;

Result<KvType> parse_kv_type(std::string_view s);
inline std::string_view kv_type_name(KvType t) { return ggml::type_name(t); }
inline bool is_quantized(KvType t) { return ggml::traits(t).is_quantized; }

// Bytes one row of n values takes; an error when a block type does not divide n.
Result<std::size_t> row_bytes(KvType t, int n);

// Encode n floats into dst (row_bytes(t, n) bytes) and back. n must be valid for t.
inline void quantize_row(KvType t, const float* src, int n, std::uint8_t* dst) {
  ggml::traits(t).from_float(src, dst, n);
}
inline void dequantize_row(KvType t, const std::uint8_t* src, int n, float* dst) {
  ggml::traits(t).to_float(src, dst, n);
}

}  // namespace tok::kv
