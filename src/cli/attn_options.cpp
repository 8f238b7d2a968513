#include "cli/attn_options.hpp"

#include <filesystem>

#include "cli/command.hpp"
#include "cli/input.hpp"
#include "cli/numeric_options.hpp"
#include "model/attention_svg.hpp"

namespace tok::cli {

void AttnOptions::add(CLI::App* app) {
  app->add_option("--attn-report", report_path,
                  "Write per-layer/head attention diagnostics of the prompt to this JSON file");
  app->add_option("--attn-svg", svg_path,
                  "Draw the heads (layers x heads) and heatmaps of chosen heads to this SVG file");
  app->add_option(
         "--attn-heads", heads,
         "Heads for the SVG heatmaps, LAYER.HEAD,... 0-based (default: the most sink-like, "
         "most local and most long-range)")
      ->check(CLI::Validator(
          [](std::string& s) {
            auto r = model::parse_head_list(s);
            return r.ok() ? std::string() : r.error().message;
          },
          "L.H,...", "HEADS"));
  app->add_option("--attn-window", window, "Local window of the attention diagnostics, in tokens")
      ->capture_default_str()
      ->check(integer_in(1, 1 << 20));
  app->add_flag("--attn-generated", generated,
                "Count generated tokens' attention too (default: the prompt's only)");
}

Status AttnOptions::begin(const model::Model& m, std::span<const bpe::TokenId> ids, int max_tokens,
                          int ctx) {
  const model::ModelConfig& c = m.config();
  int layers = static_cast<int>(c.n_layers), n_heads = static_cast<int>(c.n_heads);
  model::AttentionReportOptions o;
  if (!heads.empty()) {
    auto h = model::parse_head_list(heads, layers, n_heads);
    if (!h.ok()) throw UsageError{"--attn-heads: " + h.error().message};
    o.heatmap_heads = std::move(*h);
  }
  if (ids.size() < 2) {
    return make_error("attention diagnostics need a prompt of at least 2 tokens (got {})",
                      ids.size());
  }
  o.window = window;
  o.prompt_rows = ids.size();
  o.include_generated = generated;
  std::size_t room = ctx > 0 ? static_cast<std::size_t>(ctx) : ids.size();
  o.expected_rows =
      generated
          ? std::max(ids.size(), std::min(ids.size() + static_cast<std::size_t>(max_tokens), room))
          : ids.size();
  require_distinct_outputs({m.path()}, {report_path, svg_path});
  o.keep_all_heatmaps = !svg_path.empty() && o.heatmap_heads.empty();
  if (svg_path.empty()) o.heatmap_heads.clear();
  if (!report_path.empty()) {
    TOK_ASSIGN(auto f, AtomicFile::create(report_path));
    json_ = static_cast<int>(files_.size());
    files_.push_back(std::move(f));
  }
  if (!svg_path.empty()) {
    TOK_ASSIGN(auto f, AtomicFile::create(svg_path));
    svg_ = static_cast<int>(files_.size());
    files_.push_back(std::move(f));
  }
  report_ = std::make_unique<model::AttentionReport>(layers, n_heads, std::move(o));
  return {};
}

Status AttnOptions::finish(const model::Model& m, std::span<const bpe::TokenId> ids) {
  const bpe::Tokenizer& tk = m.tokenizer();
  std::vector<std::string> strings;
  for (bpe::TokenId id : ids) strings.push_back(escape_bytes(tk.token_bytes(id)));
  if (json_ >= 0) {
    nlohmann::json j = report_->to_json(m.path(), ids, strings);
    TOK_TRY(files_[json_].write(j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
                                "\n"));
  }
  if (svg_ >= 0) {
    model::AttentionSvgInput in;
    in.title = fmt::format("Attention of {} over a {}-token prompt{}",
                           std::filesystem::path(m.path()).filename().string(), ids.size(),
                           generated ? " and its generated tokens" : "");
    in.tokens = std::move(strings);
    TOK_TRY(files_[svg_].write(model::render_attention_svg(*report_, in)));
  }
  return commit_together(files_);
}

}  // namespace tok::cli
