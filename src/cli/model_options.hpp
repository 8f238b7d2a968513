// -m MODEL / --models FILE for commands that need one tokenizer (truncate,
// chunk): the model's tokenizer, or -e ENC when no model is given.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "cli/encoding_options.hpp"
#include "cost/tokenizer_set.hpp"

namespace tok::cli {

struct ModelOptions {
  EncodingOptions enc;
  std::string model;
  std::vector<std::string> model_files;

  void add(CLI::App* app);
  // The tokenizer to use; warns when the model's count is an estimate.
  Result<const bpe::Tokenizer*> resolve(cost::TokenizerSet& set) const;
};

}  // namespace tok::cli
