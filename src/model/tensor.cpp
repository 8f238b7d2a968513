#include "model/tensor.hpp"

#include <cctype>
#include <string>

namespace tok::model {
namespace {

struct TypeInfo {
  DType type;
  std::string_view name;
  BlockLayout layout;
};

constexpr TypeInfo kTypes[] = {
    {DType::kF32, "f32", {1, 4}},        {DType::kF16, "f16", {1, 2}},
    {DType::kBF16, "bf16", {1, 2}},      {DType::kQ8_0, "q8_0", {32, 34}},
    {DType::kQ4_0, "q4_0", {32, 18}},    {DType::kQ4_K, "q4_k", {256, 144}},
    {DType::kQ6_K, "q6_k", {256, 210}},
};

}  // namespace

bool block_layout(std::uint32_t ggml_type, BlockLayout& out) {
  for (const auto& t : kTypes) {
    if (static_cast<std::uint32_t>(t.type) == ggml_type) {
      out = t.layout;
      return true;
    }
  }
  return false;
}

std::string_view dtype_name(DType type) {
  for (const auto& t : kTypes) {
    if (t.type == type) return t.name;
  }
  return "?";
}

bool parse_dtype(std::string_view name, DType& out) {
  std::string lower(name);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const auto& t : kTypes) {
    if (t.name == lower) {
      out = t.type;
      return true;
    }
  }
  return false;
}

}  // namespace tok::model
