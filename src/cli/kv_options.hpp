// KV-cache flags shared by the commands that run a model (generate, score):
// --kv-block, --kv-type, --kv-policy, --kv-budget. Bad values are usage
// errors (exit 2), checked while parsing.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "core/result.hpp"
#include "kv/paged_cache.hpp"
#include "model/model.hpp"

namespace tok::cli {

struct KvOptions {
  int block = 16;
  std::string type = "f32";
  std::string policy = "full";
  std::string budget;  // empty: no cap

  void add(CLI::App* app);
  // The cache configuration for model m at context ctx (the policy, type and
  // budget were validated by add()'s checks). An error when the model's KV
  // row does not suit the type (q8_0/q4_0 need kv_heads * head_dim % 32 == 0),
  // the budget is below one block, or a bounded policy keeps ctx tokens or more.
  Result<kv::KvConfig> config(const model::Model& m, int ctx) const;
};

}  // namespace tok::cli
