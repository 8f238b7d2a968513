// ggml_type, the element type of a tensor as GGUF stores it, and the one
// table of what tok knows about each (llama.cpp's type_traits): name, block
// size, bytes per block, and for the types tok computes with, the reference
// conversions of a row to and from floats (ggml/quants.hpp). The GGUF reader
// and writer, `tok quantize`, the model's weights and the KV cache's storage
// types all read this table.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace tok::ggml {

// Values are ggml_type codes. Only the ids ggml defines are listed; others
// are rejected as unknown.
enum class Type : std::uint32_t {
  kF32 = 0,
  kF16 = 1,
  kQ4_0 = 2,
  kQ4_1 = 3,
  kQ5_0 = 6,
  kQ5_1 = 7,
  kQ8_0 = 8,
  kQ8_1 = 9,
  kQ2_K = 10,
  kQ3_K = 11,
  kQ4_K = 12,
  kQ5_K = 13,
  kQ6_K = 14,
  kQ8_K = 15,
  kIQ2_XXS = 16,
  kIQ2_XS = 17,
  kIQ3_XXS = 18,
  kIQ1_S = 19,
  kIQ4_NL = 20,
  kIQ3_S = 21,
  kIQ2_S = 22,
  kIQ4_XS = 23,
  kI8 = 24,
  kI16 = 25,
  kI32 = 26,
  kI64 = 27,
  kF64 = 28,
  kIQ1_M = 29,
  kBF16 = 30,
  kTQ1_0 = 34,
  kTQ2_0 = 35,
};

// n values (a multiple of block_size) from a row of blocks to floats, and back.
using ToFloatFn = void (*)(const void* src, float* dst, std::int64_t n);
using FromFloatFn = void (*)(const float* src, void* dst, std::int64_t n);

struct TypeTraits {
  Type type;
  std::string_view name;     // ggml's spelling: "f32", "q8_0", "q4_K", ...
  std::uint32_t block_size;  // values per block (1 for plain numbers)
  std::uint32_t type_size;   // bytes per block
  bool is_quantized;
  ToFloatFn to_float;      // null for types tok cannot compute with
  FromFloatFn from_float;  // null likewise
};

// Traits of a type id, or nullptr for ids ggml does not define.
const TypeTraits* traits(std::uint32_t type);
inline const TypeTraits& traits(Type type) { return *traits(static_cast<std::uint32_t>(type)); }
inline std::string_view type_name(Type type) { return traits(type).name; }
// Can tok compute with this type (convert it to and from floats)?
inline bool is_computable(Type type) { return traits(type).to_float != nullptr; }
// A type tok computes with, by name, case-insensitively ("q4_k", "Q8_0");
// false when there is none.
bool parse_type(std::string_view name, Type& out);
// The names of the types tok computes with, for messages: "f32, f16, ...".
std::string computable_type_names();

// Bytes one row of n values takes (n a multiple of the block size).
inline std::size_t row_bytes(Type type, std::int64_t n) {
  const TypeTraits& t = traits(type);
  return static_cast<std::size_t>(n) / t.block_size * t.type_size;
}

inline constexpr std::size_t kMaxDims = 4;  // GGML_MAX_DIMS

// Bytes a tensor of this type and shape takes: dims[0] must be a multiple of
// the block size; the product must not overflow. Errors say which.
Result<std::uint64_t> tensor_bytes(Type type, const std::vector<std::uint64_t>& dims);

}  // namespace tok::ggml
