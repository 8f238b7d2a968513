// Tensor views over model weights: a type (ggml's numbering, as GGUF stores
// it), a 2-D shape and a pointer into the mmap'd file. Weights are never
// copied; a TensorView is valid while the file mapping lives.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ggml/type.hpp"

namespace tok::model {

// The weight's element type: ggml's (one enum and one traits table for
// formats, kv and model; ggml/type.hpp).
using DType = ggml::Type;

// Dequantizes one row of n elements (n a multiple of the block size) of a
// type tok computes with (ggml::is_computable).
inline void dequantize_row(DType type, const void* src, float* dst, std::int64_t n) {
  ggml::traits(type).to_float(src, dst, n);
}

// A row-major matrix (rows, cols) or a vector (rows == 1). cols is GGUF's
// ne[0], the contiguous dimension; a row of a quantized type is cols/elems
// whole blocks.
struct TensorView {
  DType type = DType::kF32;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  const void* data = nullptr;
  // Q4_0 rows rearranged in groups of four (model/repack.hpp): row() and
  // the block layout of a row then do not apply to rows in whole groups.
  bool q4_0x4 = false;
  // Q4_K and Q6_K rows rearranged in groups of sixteen (model/repack.hpp), likewise.
  bool q4_kx16 = false;
  bool q6_kx16 = false;

  bool empty() const { return data == nullptr; }
  std::size_t row_bytes() const { return ggml::row_bytes(type, cols); }
  const std::uint8_t* row(std::int64_t r) const {
    return static_cast<const std::uint8_t*>(data) + static_cast<std::size_t>(r) * row_bytes();
  }
  std::size_t bytes() const { return static_cast<std::size_t>(rows) * row_bytes(); }
};

}  // namespace tok::model
