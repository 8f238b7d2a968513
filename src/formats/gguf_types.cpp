#include "formats/gguf_types.hpp"

#include <array>
#include <limits>

namespace tok::formats {

std::string_view value_type_name(ValueType t) {
  static constexpr std::array<std::string_view, kValueTypeCount> kNames = {
      "uint8", "int8",  "uint16", "int16", "uint32", "int32",  "float32",
      "bool",  "string", "array", "uint64", "int64", "float64"};
  auto i = static_cast<std::uint32_t>(t);
  return i < kValueTypeCount ? kNames[i] : std::string_view("unknown");
}

std::size_t min_encoded_size(ValueType t) {
  switch (t) {
    case ValueType::kUint8:
    case ValueType::kInt8:
    case ValueType::kBool:
      return 1;
    case ValueType::kUint16:
    case ValueType::kInt16:
      return 2;
    case ValueType::kUint32:
    case ValueType::kInt32:
    case ValueType::kFloat32:
      return 4;
    case ValueType::kUint64:
    case ValueType::kInt64:
    case ValueType::kFloat64:
    case ValueType::kString:
      return 8;
    case ValueType::kArray:
      return 12;
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
    case ValueType::kInt64:
      return true;
    default:
      return false;
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

const GgmlTypeInfo* ggml_type_info(std::uint32_t type) {
  // Block layouts from ggml-common.h (QK_K = 256).
  static const GgmlTypeInfo kF32{"f32", 1, 4}, kF16{"f16", 1, 2}, kQ4_0{"q4_0", 32, 18},
      kQ4_1{"q4_1", 32, 20}, kQ5_0{"q5_0", 32, 22}, kQ5_1{"q5_1", 32, 24},
      kQ8_0{"q8_0", 32, 34}, kQ8_1{"q8_1", 32, 36}, kQ2K{"q2_K", 256, 84},
      kQ3K{"q3_K", 256, 110}, kQ4K{"q4_K", 256, 144}, kQ5K{"q5_K", 256, 176},
      kQ6K{"q6_K", 256, 210}, kQ8K{"q8_K", 256, 292}, kIQ2XXS{"iq2_xxs", 256, 66},
      kIQ2XS{"iq2_xs", 256, 74}, kIQ3XXS{"iq3_xxs", 256, 98}, kIQ1S{"iq1_s", 256, 50},
      kIQ4NL{"iq4_nl", 32, 18}, kIQ3S{"iq3_s", 256, 110}, kIQ2S{"iq2_s", 256, 82},
      kIQ4XS{"iq4_xs", 256, 136}, kI8{"i8", 1, 1}, kI16{"i16", 1, 2}, kI32{"i32", 1, 4},
      kI64{"i64", 1, 8}, kF64{"f64", 1, 8}, kIQ1M{"iq1_m", 256, 56}, kBF16{"bf16", 1, 2},
      kTQ10{"tq1_0", 256, 54}, kTQ20{"tq2_0", 256, 66};
  switch (static_cast<GgmlType>(type)) {
    case GgmlType::kF32: return &kF32;
    case GgmlType::kF16: return &kF16;
    case GgmlType::kQ4_0: return &kQ4_0;
    case GgmlType::kQ4_1: return &kQ4_1;
    case GgmlType::kQ5_0: return &kQ5_0;
    case GgmlType::kQ5_1: return &kQ5_1;
    case GgmlType::kQ8_0: return &kQ8_0;
    case GgmlType::kQ8_1: return &kQ8_1;
    case GgmlType::kQ2_K: return &kQ2K;
    case GgmlType::kQ3_K: return &kQ3K;
    case GgmlType::kQ4_K: return &kQ4K;
    case GgmlType::kQ5_K: return &kQ5K;
    case GgmlType::kQ6_K: return &kQ6K;
    case GgmlType::kQ8_K: return &kQ8K;
    case GgmlType::kIQ2_XXS: return &kIQ2XXS;
    case GgmlType::kIQ2_XS: return &kIQ2XS;
    case GgmlType::kIQ3_XXS: return &kIQ3XXS;
    case GgmlType::kIQ1_S: return &kIQ1S;
    case GgmlType::kIQ4_NL: return &kIQ4NL;
    case GgmlType::kIQ3_S: return &kIQ3S;
    case GgmlType::kIQ2_S: return &kIQ2S;
    case GgmlType::kIQ4_XS: return &kIQ4XS;
    case GgmlType::kI8: return &kI8;
    case GgmlType::kI16: return &kI16;
    case GgmlType::kI32: return &kI32;
    case GgmlType::kI64: return &kI64;
    case GgmlType::kF64: return &kF64;
    case GgmlType::kIQ1_M: return &kIQ1M;
    case GgmlType::kBF16: return &kBF16;
    case GgmlType::kTQ1_0: return &kTQ10;
    case GgmlType::kTQ2_0: return &kTQ20;
  }
  return nullptr;
}

Result<std::uint64_t> ggml_nbytes(GgmlType type, const std::vector<std::uint64_t>& dims) {
  const GgmlTypeInfo* info = ggml_type_info(type);
  if (!info) return make_error("unknown ggml type {}", static_cast<std::uint32_t>(type));
  if (dims.empty() || dims.size() > kMaxDims) {
    return make_error("{} dimensions (expected 1 to {})", dims.size(), kMaxDims);
  }
  constexpr std::uint64_t kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  std::uint64_t elements = 1;
  for (std::uint64_t d : dims) {
    if (d > kMax) return make_error("dimension {} is out of range", d);
    if (d != 0 && elements > kMax / d) return make_error("element count overflows");
    elements *= d;
  }
  if (dims[0] % info->block_size != 0) {
    return make_error("first dimension {} is not a multiple of the {} block size {}", dims[0],
                      info->name, info->block_size);
  }
  std::uint64_t blocks = elements / info->block_size;
  if (blocks > kMax / info->type_size) return make_error("byte size overflows");
  return blocks * info->type_size;
}

}  // namespace tok::formats
