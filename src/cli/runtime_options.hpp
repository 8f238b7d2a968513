// Options shared by the commands that run a model (generate, score): the
// model file (default: the shipped tiny model in vocab/) and threads.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "core/result.hpp"
#include "model/model.hpp"

namespace tok::cli {

inline constexpr const char* kDefaultModel = "tok-tiny-bible.gguf";

struct RuntimeOptions {
  std::string model;
  unsigned threads = 0;  // 0: all hardware threads (up to 8)
  int ctx = 0;

  void add(CLI::App* app);
  unsigned thread_count() const;
  Result<model::Model> load() const;
};

// The prompt of generate: `arg` when given, else all of stdin (its text in
// *text), encoded with the model's tokenizer (special-token strings are
// ordinary text), with BOS first when the model file asks for it.
Result<std::vector<bpe::TokenId>> prompt_ids(const model::Model& m, const std::string& arg,
                                             bool given, std::string* text);

}  // namespace tok::cli
