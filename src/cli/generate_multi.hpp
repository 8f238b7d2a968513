// `tok generate --samples N`, `--beams B` and `--batch FILE.jsonl`: many
// sequences on one paged KV cache (src/model/samples.hpp, batch.hpp). The
// flags live here so generate_cmd.cpp only registers them and dispatches.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>

#include "cli/kv_options.hpp"
#include "cli/runtime_options.hpp"
#include "model/generator.hpp"

namespace tok::cli {

struct MultiGenerateArgs {
  int samples = 0;        // --samples N
  int beams = 0;          // --beams B
  std::string batch;      // --batch FILE.jsonl
  bool no_share = false;  // --no-share: prefill the prompt once per sample
  int max_batch = 64;     // --max-batch: sequences stepped together

  void add(CLI::App* app);
  bool active() const { return samples > 0 || beams > 0 || !batch.empty(); }
};

// What the rest of generate's command line says.
struct GenerateContext {
  const RuntimeOptions& runtime;
  const KvOptions& kv;
  const model::GenerateOptions& gen;
  std::optional<std::uint64_t> seed;
  const std::string& prompt;
  bool prompt_given, json, stats, echo;
};

int run_generate_multi(const MultiGenerateArgs& m, const GenerateContext& c);

}  // namespace tok::cli
