// NativeTokenizer: what tok.load() returns (see native_tokenizer.cpp).
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "python/engine.hpp"

namespace tok::python {

namespace py = pybind11;

struct NativeTokenizer {
  std::shared_ptr<Engine> engine;

  // As -e SPEC (with --pattern); ValueError with tok's message on failure.
  static NativeTokenizer load(const std::string& spec, std::optional<std::string> pattern);
  std::vector<bpe::TokenId> encode_view(std::string_view text, bpe::SpecialMode mode) const;
};

// "text", "allow" or "error" (the CLI's --special values).
bpe::SpecialMode special_mode(const std::string& special);
// threads, or the CPUs tok may use when 0.
unsigned thread_count(unsigned threads);

}  // namespace tok::python
