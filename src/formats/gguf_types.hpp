// GGUF metadata value types: the vocabulary shared by GgufFile (reader) and
// GgufWriter (tensor element types are ggml::Type, ggml/type.hpp). Spec:
// https://github.com/ggml-org/ggml/blob/master/docs/gguf.md
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
#include "ggml/type.hpp"

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
  std::string_view str;                // kString
  ValueType elem = ValueType::kUint8;  // kArray: type of the elements
  std::vector<Value> array;            // kArray

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

// Upper limits on what a file may declare.
inline constexpr std::size_t kMaxDims = ggml::kMaxDims;
inline constexpr std::size_t kMaxArrayDepth = 16;  // nested arrays
inline constexpr std::uint32_t kDefaultAlignment = 32;

}  // namespace tok::formats
