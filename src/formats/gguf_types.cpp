#include "formats/gguf_types.hpp"

#include <array>

namespace tok::formats {

std::string_view value_type_name(ValueType t) {
  static constexpr std::array<std::string_view, kValueTypeCount> kNames = {
      "uint8", "int8",   "uint16", "int16",  "uint32", "int32",  "float32",
      "bool",  "string", "array",  "uint64", "int64",  "float64"};
  auto i = static_cast<std::uint32_t>(t);
  return i < kValueTypeCount ? kNames[i] : std::string_view("unknown");
}

std::size_t min_encoded_size(ValueType t) {
  switch (t) {
    case ValueType::kUint8:
    case ValueType::kInt8:
    case ValueType::kBool: return 1;
    case ValueType::kUint16:
    case ValueType::kInt16: return 2;
    case ValueType::kUint32:
    case ValueType::kInt32:
    case ValueType::kFloat32: return 4;
    case ValueType::kUint64:
    case ValueType::kInt64:
    case ValueType::kFloat64:
    case ValueType::kString: return 8;
    case ValueType::kArray: return 12;
  }
  return 1;
}

bool Value::is_integer() const {
  switch (type) {
    case ValueType::kUint8:
    case ValueType::kInt8:
    case ValueType::kUint16:
    case ValueType::kInt16:
    case ValueType::kUint32:
    case ValueType::kInt32:
    case ValueType::kUint64:
    case ValueType::kInt64: return true;
    default: return false;
  }
}

std::string Value::type_name() const {
  if (type != ValueType::kArray) return std::string(value_type_name(type));
  return fmt::format("array[{}]", value_type_name(elem));
}

namespace {
Value unsigned_value(ValueType t, std::uint64_t v) {
  Value x;
  x.type = t;
  x.u = v;
  x.i = static_cast<std::int64_t>(v);
  return x;
}
Value signed_value(ValueType t, std::int64_t v) {
  Value x;
  x.type = t;
  x.i = v;
  x.u = static_cast<std::uint64_t>(v);
  return x;
}
}  // namespace

Value Value::u8(std::uint8_t v) { return unsigned_value(ValueType::kUint8, v); }
Value Value::i8(std::int8_t v) { return signed_value(ValueType::kInt8, v); }
Value Value::u16(std::uint16_t v) { return unsigned_value(ValueType::kUint16, v); }
Value Value::i16(std::int16_t v) { return signed_value(ValueType::kInt16, v); }
Value Value::u32(std::uint32_t v) { return unsigned_value(ValueType::kUint32, v); }
Value Value::i32(std::int32_t v) { return signed_value(ValueType::kInt32, v); }
Value Value::u64(std::uint64_t v) { return unsigned_value(ValueType::kUint64, v); }
Value Value::i64(std::int64_t v) { return signed_value(ValueType::kInt64, v); }
Value Value::boolean(bool v) { return unsigned_value(ValueType::kBool, v ? 1 : 0); }

Value Value::f32(float v) {
  Value x;
  x.type = ValueType::kFloat32;
  x.f = v;
  return x;
}

Value Value::f64(double v) {
  Value x;
  x.type = ValueType::kFloat64;
  x.f = v;
  return x;
}

Value Value::string(std::string_view v) {
  Value x;
  x.type = ValueType::kString;
  x.str = v;
  return x;
}

Value Value::make_array(ValueType elem, std::vector<Value> items) {
  Value x;
  x.type = ValueType::kArray;
  x.elem = elem;
  x.array = std::move(items);
  return x;
}

}  // namespace tok::formats
