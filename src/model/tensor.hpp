// Tensor views over model weights: a type (ggml's numbering, as GGUF stores
// it), a 2-D shape and a pointer into the mmap'd file. Weights are never
// copied; a TensorView is valid while the file mapping lives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace tok::model {

// Values are ggml_type codes (GGUF tensor info "type").
enum class DType : std::uint32_t {
  kF32 = 0,
  kF16 = 1,
  kQ4_0 = 2,
  kQ8_0 = 8,
  kQ4_K = 12,
  kQ6_K = 14,
  kBF16 = 30,
};

// Elements per block and bytes per block (1 element for plain floats).
struct BlockLayout {
  std::size_t elems;
  std::size_t bytes;
};

// Layout of a known type; false for types tok cannot compute with.
bool block_layout(std::uint32_t ggml_type, BlockLayout& out);
std::string_view dtype_name(DType t);
// "f32", "q8_0", ... (case-insensitive) -> type; false if unknown.
bool parse_dtype(std::string_view name, DType& out);

inline BlockLayout layout_of(DType t) {
  BlockLayout l{1, 4};
  block_layout(static_cast<std::uint32_t>(t), l);
  return l;
}

// A row-major matrix (rows, cols) or a vector (rows == 1). cols is GGUF's
// ne[0], the contiguous dimension; a row of a quantized type is cols/elems
// whole blocks.
struct TensorView {
  DType type = DType::kF32;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  const void* data = nullptr;

  bool empty() const { return data == nullptr; }
  std::size_t row_bytes() const {
    BlockLayout l = layout_of(type);
    return static_cast<std::size_t>(cols) / l.elems * l.bytes;
  }
  const std::uint8_t* row(std::int64_t r) const {
    return static_cast<const std::uint8_t*>(data) + static_cast<std::size_t>(r) * row_bytes();
  }
  std::size_t bytes() const { return static_cast<std::size_t>(rows) * row_bytes(); }
};

}  // namespace tok::model
