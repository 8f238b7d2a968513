// The tokenizers of the chosen models, loaded lazily and once each: models
// sharing a vocabulary (every o200k_base model) share one Tokenizer, and a
// model whose vocabulary is not installed fails only when it is used, with a
// message naming the model and its tokenizer.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "bpe/tokenizer.hpp"
#include "core/result.hpp"
#include "cost/catalog.hpp"

namespace tok::cost {

class TokenizerSet {
 public:
  Result<const bpe::Tokenizer*> get(const ModelInfo& m);
  Result<const bpe::Tokenizer*> get_encoding(const std::string& spec);

 private:
  std::map<std::string, std::unique_ptr<bpe::Tokenizer>> loaded_;
};

}  // namespace tok::cost
