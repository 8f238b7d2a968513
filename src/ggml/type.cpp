#include "ggml/type.hpp"

#include <array>
#include <cctype>
#include <cstring>
#include <limits>
#include <string>

#include "ggml/half.hpp"
#include "ggml/quants.hpp"

namespace tok::ggml {
namespace {

void f32_to_float(const void* src, float* dst, std::int64_t n) {
  std::memcpy(dst, src, static_cast<std::size_t>(n) * 4);
}
void f32_from_float(const float* src, void* dst, std::int64_t n) {
  std::memcpy(dst, src, static_cast<std::size_t>(n) * 4);
}
void f16_to_float(const void* src, float* dst, std::int64_t n) {
  halves_to_floats(static_cast<const std::uint8_t*>(src), static_cast<int>(n), dst);
}
void f16_from_float(const float* src, void* dst, std::int64_t n) {
  auto* h = static_cast<std::uint16_t*>(dst);
  for (std::int64_t i = 0; i < n; ++i) h[i] = f32_to_fp16(src[i]);
}
void bf16_to_float(const void* src, float* dst, std::int64_t n) {
  auto* h = static_cast<const std::uint16_t*>(src);
  for (std::int64_t i = 0; i < n; ++i) dst[i] = bf16_to_f32(h[i]);
}
void bf16_from_float(const float* src, void* dst, std::int64_t n) {
  auto* h = static_cast<std::uint16_t*>(dst);
  for (std::int64_t i = 0; i < n; ++i) h[i] = f32_to_bf16(src[i]);
}

// The typed reference functions as untyped table entries.
template <class Block, void (*F)(const Block*, float*, std::int64_t)>
void to_float(const void* src, float* dst, std::int64_t n) {
  F(static_cast<const Block*>(src), dst, n);
}
template <class Block, void (*F)(const float*, Block*, std::int64_t)>
void from_float(const float* src, void* dst, std::int64_t n) {
  F(src, static_cast<Block*>(dst), n);
}

// Block layouts from ggml-common.h (QK_K = 256).
constexpr TypeTraits kTraits[] = {
    {Type::kF32, "f32", 1, 4, false, f32_to_float, f32_from_float},
    {Type::kF16, "f16", 1, 2, false, f16_to_float, f16_from_float},
    {Type::kQ4_0, "q4_0", 32, 18, true, to_float<BlockQ4_0, dequantize_row_q4_0>,
     from_float<BlockQ4_0, quantize_row_q4_0>},
    {Type::kQ4_1, "q4_1", 32, 20, true, to_float<BlockQ4_1, dequantize_row_q4_1>,
     from_float<BlockQ4_1, quantize_row_q4_1>},
    {Type::kQ5_0, "q5_0", 32, 22, true, to_float<BlockQ5_0, dequantize_row_q5_0>,
     from_float<BlockQ5_0, quantize_row_q5_0>},
    {Type::kQ5_1, "q5_1", 32, 24, true, to_float<BlockQ5_1, dequantize_row_q5_1>,
     from_float<BlockQ5_1, quantize_row_q5_1>},
    {Type::kQ8_0, "q8_0", 32, 34, true, to_float<BlockQ8_0, dequantize_row_q8_0>,
     from_float<BlockQ8_0, quantize_row_q8_0>},
    {Type::kQ8_1, "q8_1", 32, 36, true, nullptr, nullptr},
    {Type::kQ2_K, "q2_K", 256, 84, true, to_float<BlockQ2_K, dequantize_row_q2_k>,
     from_float<BlockQ2_K, quantize_row_q2_k>},
    {Type::kQ3_K, "q3_K", 256, 110, true, to_float<BlockQ3_K, dequantize_row_q3_k>,
     from_float<BlockQ3_K, quantize_row_q3_k>},
    {Type::kQ4_K, "q4_K", 256, 144, true, to_float<BlockQ4_K, dequantize_row_q4_k>,
     from_float<BlockQ4_K, quantize_row_q4_k>},
    {Type::kQ5_K, "q5_K", 256, 176, true, to_float<BlockQ5_K, dequantize_row_q5_k>,
     from_float<BlockQ5_K, quantize_row_q5_k>},
    {Type::kQ6_K, "q6_K", 256, 210, true, to_float<BlockQ6_K, dequantize_row_q6_k>,
     from_float<BlockQ6_K, quantize_row_q6_k>},
    {Type::kQ8_K, "q8_K", 256, 292, true, nullptr, nullptr},
    {Type::kIQ2_XXS, "iq2_xxs", 256, 66, true, nullptr, nullptr},
    {Type::kIQ2_XS, "iq2_xs", 256, 74, true, nullptr, nullptr},
    {Type::kIQ3_XXS, "iq3_xxs", 256, 98, true, nullptr, nullptr},
    {Type::kIQ1_S, "iq1_s", 256, 50, true, nullptr, nullptr},
    {Type::kIQ4_NL, "iq4_nl", 32, 18, true, nullptr, nullptr},
    {Type::kIQ3_S, "iq3_s", 256, 110, true, nullptr, nullptr},
    {Type::kIQ2_S, "iq2_s", 256, 82, true, nullptr, nullptr},
    {Type::kIQ4_XS, "iq4_xs", 256, 136, true, nullptr, nullptr},
    {Type::kI8, "i8", 1, 1, false, nullptr, nullptr},
    {Type::kI16, "i16", 1, 2, false, nullptr, nullptr},
    {Type::kI32, "i32", 1, 4, false, nullptr, nullptr},
    {Type::kI64, "i64", 1, 8, false, nullptr, nullptr},
    {Type::kF64, "f64", 1, 8, false, nullptr, nullptr},
    {Type::kIQ1_M, "iq1_m", 256, 56, true, nullptr, nullptr},
    {Type::kBF16, "bf16", 1, 2, false, bf16_to_float, bf16_from_float},
    {Type::kTQ1_0, "tq1_0", 256, 54, true, nullptr, nullptr},
    {Type::kTQ2_0, "tq2_0", 256, 66, true, nullptr, nullptr},
};

// Id -> entry, built once from kTraits (ids run to 35 with gaps).
constexpr auto kById = [] {
  std::array<const TypeTraits*, 36> by{};
  for (const TypeTraits& t : kTraits) by[static_cast<std::uint32_t>(t.type)] = &t;
  return by;
}();

}  // namespace

const TypeTraits* traits(std::uint32_t type) { return type < kById.size() ? kById[type] : nullptr; }

bool parse_type(std::string_view name, Type& out) {
  for (const TypeTraits& t : kTraits) {
    if (!t.to_float || t.name.size() != name.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < name.size() && same; ++i) {
      same = std::tolower(static_cast<unsigned char>(name[i])) ==
             std::tolower(static_cast<unsigned char>(t.name[i]));
    }
    if (same) {
      out = t.type;
      return true;
    }
  }
  return false;
}

std::string computable_type_names() {
  std::string s;
  for (const TypeTraits& t : kTraits) {
    if (!t.to_float) continue;
    if (!s.empty()) s += ", ";
    s += t.name;
  }
  return s;
}

Result<std::uint64_t> tensor_bytes(Type type, const std::vector<std::uint64_t>& dims) {
  const TypeTraits* info = traits(static_cast<std::uint32_t>(type));
  if (!info) return make_error("unknown ggml type {}", static_cast<std::uint32_t>(type));
  if (dims.empty() || dims.size() > kMaxDims) {
    return make_error("{} dimensions (expected 1 to {})", dims.size(), kMaxDims);
  }
  constexpr std::uint64_t kMax =
      static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
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

}  // namespace tok::ggml
