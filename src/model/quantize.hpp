// Writes a quantized copy of a GGUF model: every 2-D weight matrix whose rows
// are whole blocks becomes `type` (any type tok computes with, by ggml's
// reference quantizers, ggml/quants.hpp, so llama.cpp reads the result);
// norms and biases stay as they are. With `mixed`, the file is a "_M" mix as
// llama-quantize makes one for Q4_K_M / Q5_K_M: output.weight, and attn_v
// and ffn_down in the layers llama.cpp gives more bits, become Q6_K.
// Metadata is copied unchanged; the output is written atomically.
#pragma once

#include <string>

#include "core/result.hpp"
#include "model/tensor.hpp"

namespace tok::model {

struct QuantizeReport {
  std::size_t quantized = 0;  // tensors converted
  std::size_t kept = 0;       // tensors copied as they were
  std::uint64_t in_bytes = 0, out_bytes = 0;
};

Result<QuantizeReport> quantize_file(const std::string& in, const std::string& out, DType type,
                                     bool mixed = false);

}  // namespace tok::model
