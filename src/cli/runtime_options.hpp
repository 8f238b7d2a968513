// Options shared by the commands that run a model (generate, score): the
// model file (default: the shipped tiny model in vocab/) and threads.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

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

}  // namespace tok::cli
