// Writes a quantized copy of a GGUF model: every 2-D weight matrix becomes
// `type` (any type tok computes with, by ggml's reference quantizers,
// ggml/quants.hpp, so llama.cpp reads the result); norms and biases stay as
// they are. With `mixed`, the file is a "_M" mix as llama-quantize makes one
// for Q4_K_M / Q5_K_M: output.weight, and attn_v and ffn_down in the layers
// llama.cpp gives more bits, become Q6_K.
// A matrix whose rows are not whole blocks of its type gets llama-quantize's
// fallback type instead (fallback_type), and the report lists it. Converting
// a tensor that is already quantized is refused unless allow_requantize, as
// llama-quantize refuses it: its error adds to the first quantization's.
// Metadata is copied unchanged; the output is written atomically.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "model/tensor.hpp"

namespace tok::model {

// A tensor written as another type than asked for: its rows are not whole
// blocks of `wanted`.
struct QuantizeFallback {
  std::string tensor;
  std::int64_t cols = 0;  // values per row
  DType wanted, used;
};

struct QuantizeReport {
  std::size_t quantized = 0;  // tensors converted (fallbacks included)
  std::size_t kept = 0;       // tensors copied as they were
  std::vector<QuantizeFallback> fallbacks;
  std::uint64_t in_bytes = 0, out_bytes = 0;
};

struct QuantizeOptions {
  bool mixed = false;             // the "_M" mix of a K-quant
  bool allow_requantize = false;  // convert tensors that are already quantized
};

// The type a row of `cols` values is written as when `type` is asked for:
// `type` when the rows are whole blocks of it, else llama-quantize's
// fallback (Q4_K -> Q5_0, Q5_K -> Q5_1, Q6_K -> Q8_0; Q2_K and Q3_K ->
// Q4_0, where llama.cpp takes IQ4_NL, a type of the same size tok does not
// compute with; a 32-value block type -> F16), and F16 when the rows are not
// whole blocks of that either.
DType fallback_type(DType type, std::int64_t cols);

Result<QuantizeReport> quantize_file(const std::string& in, const std::string& out, DType type,
                                     const QuantizeOptions& options = {});

}  // namespace tok::model
