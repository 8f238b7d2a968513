// GGUF value and tensor types: the vocabulary shared by GgufFile (reader) and
// GgufWriter. Spec: https://github.com/ggml-org/ggml/blob/master/docs/gguf.md
//
// A Value read from a file refers to the file's bytes (strings are views into
// the mapping), so it lives as long as the GgufFile it came from. Values built
// for the writer refer to the caller's strings, which must outlive the set()
// call only (the writer encodes them at once).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace tok::formats {

// gguf_type: the type tag of a metadata value.
enum class ValueType : std::uint32_t {
  kUint8 = 0,
  kInt8 = 1,
  kUint16 = 2,
  kInt16 = 3,
  kUint32 = 4,
  kInt32 = 5,
  kFloat32 = 6,
  kBool = 7,
  kString = 8,
  kArray = 9,
  kUint64 = 10,
  kInt64 = 11,
  kFloat64 = 12,
};
inline constexpr std::uint32_t kValueTypeCount = 13;

// "uint32", "string", ... for messages.
std::string_view value_type_name(ValueType t);
// Bytes one element of this type takes at least in a file (strings: the length
// field; arrays: type + count). Used to reject absurd counts before allocating.
std::size_t min_encoded_size(ValueType t);

struct Value {
  ValueType type = ValueType::kUint8;
  // Scalars: integers in u (unsigned) or i (signed), floats in f, bool in u.
  std::uint64_t u = 0;
  std::int64_t i = 0;
  double f = 0;
  std::string_view str;             // kString
  ValueType elem = ValueType::kUint8;  // kArray: type of the elements
  std::vector<Value> array;         // kArray

  bool is_integer() const;
  bool is_float() const { return type == ValueType::kFloat32 || type == ValueType::kFloat64; }
  // Human-readable type, "array[string]" for arrays.
  std::string type_name() const;

  static Value u8(std::uint8_t v);
  static Value i8(std::int8_t v);
  static Value u16(std::uint16_t v);
  static Value i16(std::int16_t v);
  static Value u32(std::uint32_t v);
  static Value i32(std::int32_t v);
  static Value u64(std::uint64_t v);
  static Value i64(std::int64_t v);
  static Value f32(float v);
  static Value f64(double v);
  static Value boolean(bool v);
  static Value string(std::string_view v);
  static Value make_array(ValueType elem, std::vector<Value> items);
};

// ggml_type: the element type of a tensor. Only the ids tok knows are listed;
// others are rejected by name.
enum class GgmlType : std::uint32_t {
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

struct GgmlTypeInfo {
  std::string_view name;     // "f32", "q4_K", ...
  std::uint32_t block_size;  // elements per block
  std::uint32_t type_size;   // bytes per block
};

// Traits of a type id, or nullptr for ids tok does not know.
const GgmlTypeInfo* ggml_type_info(std::uint32_t type);
inline const GgmlTypeInfo* ggml_type_info(GgmlType type) {
  return ggml_type_info(static_cast<std::uint32_t>(type));
}

// Bytes a tensor of this type and shape takes: dims[0] must be a multiple of
// the block size; the product must not overflow. Errors say which.
Result<std::uint64_t> ggml_nbytes(GgmlType type, const std::vector<std::uint64_t>& dims);

// Upper limits on what a file may declare.
inline constexpr std::size_t kMaxDims = 4;         // GGML_MAX_DIMS
inline constexpr std::size_t kMaxArrayDepth = 16;  // nested arrays
inline constexpr std::uint32_t kDefaultAlignment = 32;

}  // namespace tok::formats
