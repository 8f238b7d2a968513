// Attention diagnostics flags of `tok generate` (issue #8): --attn-report
// FILE.json, --attn-svg FILE.svg, --attn-heads L.H,..., --attn-window W,
// --attn-generated. The work lives in model::AttentionReport and
// model::render_attention_svg; this wires them to the command line.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/atomic_file.hpp"
#include "core/result.hpp"
#include "model/attention_report.hpp"
#include "model/model.hpp"

namespace tok::cli {

struct AttnOptions {
  std::string report_path, svg_path, heads;
  int window = 8;
  bool generated = false;

  void add(CLI::App* app);
  bool enabled() const { return !report_path.empty() || !svg_path.empty(); }
  // Opens the outputs (an unwritable path fails before the model runs) and
  // builds the observer. A head out of the model's range is a UsageError.
  Status begin(const model::Model& m, std::span<const bpe::TokenId> ids, int max_tokens, int ctx);
  model::AttentionObserver* observer() { return report_.get(); }
  // Writes and commits the report and the picture.
  Status finish(const model::Model& m, std::span<const bpe::TokenId> ids);

 private:
  std::unique_ptr<model::AttentionReport> report_;
  std::vector<AtomicFile> files_;  // report, then picture (either may be absent)
  int json_ = -1, svg_ = -1;       // their indexes in files_
};

}  // namespace tok::cli
