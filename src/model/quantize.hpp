// Writes a quantized copy of a GGUF model: every 2-D weight matrix whose rows
// are whole blocks becomes `type` (Q8_0 or Q4_0, with ggml's reference
// quantizers, so llama.cpp reads the result); norms and biases stay F32.
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

Result<QuantizeReport> quantize_file(const std::string& in, const std::string& out, DType type);

}  // namespace tok::model
