// The vocabularies and the -m MODEL part of `tok show`: which tokenizers to
// draw (the -e ones, else the model's own, else o200k_base) and the model
// figures for the summary. The figures come from the cost module's functions
// (price_tokens, estimate_kv) on the same token count `tok count -m MODEL`
// uses (always the model's own tokenizer, whatever -e draws), so the numbers
// are equal to those of `tok count -m` and `tok count --kv`.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bpe/tokenizer.hpp"
#include "core/result.hpp"
#include "cost/catalog.hpp"
#include "cost/tokenizer_set.hpp"
#include "show/summary.hpp"

namespace tok::cli {

struct ShowModelArgs {
  std::optional<std::string> model;
  std::vector<std::string> model_files;  // --models FILE
  std::vector<std::string> encodings;    // -e, at most two
  std::optional<std::string> pattern;    // --pattern, applied to the -e ones
};

class ShowModel {
 public:
  static Result<std::unique_ptr<ShowModel>> load(const ShowModelArgs& args);

  // The vocabularies to draw, in order (1 or 2).
  const std::vector<const bpe::Tokenizer*>& tokenizers() const { return tokenizers_; }
  // The model's own tokenizer (-m), or null.
  const bpe::Tokenizer* model_tokenizer() const { return model_tokenizer_; }
  // Figures for `tokens` tokens of the model's tokenizer; nullopt without -m.
  std::optional<show::ModelFigures> figures(std::uint64_t tokens) const;

 private:
  cost::Catalog catalog_;
  cost::TokenizerSet set_;
  std::vector<std::unique_ptr<bpe::Tokenizer>> owned_;  // loaded with --pattern
  std::vector<const bpe::Tokenizer*> tokenizers_;
  const cost::ModelInfo* model_ = nullptr;
  const bpe::Tokenizer* model_tokenizer_ = nullptr;
};

}  // namespace tok::cli
