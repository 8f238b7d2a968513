// tok score [-m MODEL] [FILE]: how well the model predicts a text (mean
// negative log-likelihood per token, perplexity), in windows of the context
// or, with a bounded --kv-policy, as one stream through one evicting cache.
// With --kv-type other than f32 it also scores with f32 storage and reports
// the perplexity change.
#include <nlohmann/json.hpp>

#include <cmath>

#include "cli/command.hpp"
#include "cli/input.hpp"
#include "cli/kv_options.hpp"
#include "cli/runtime_options.hpp"
#include "cli/text_inputs.hpp"
#include "core/output.hpp"
#include "model/score.hpp"

namespace tok::cli {
namespace {

struct ScoreArgs {
  RuntimeOptions model;
  KvOptions kv;
  std::string file;
  bool json = false, stats = false;
};

double perplexity(const model::ScoreStats& s) { return std::exp(s.mean_nll()); }

// "windows 3 (context 256)" or "stream (kv-policy window:64, context 256, 4000 evicted)".
std::string mode_text(const model::ScoreStats& s, int ctx) {
  if (!s.streamed) return fmt::format("windows {} (context {})", s.windows, ctx);
  return fmt::format("stream (kv-policy {}, context {}, {} evicted)", s.kv.policy.to_string(), ctx,
                     s.kv.evicted_tokens);
}

nlohmann::json score_json(const model::ScoreStats& st, const model::ScoreStats* f32, int ctx) {
  double tps = st.seconds > 0 ? static_cast<double>(st.tokens) / st.seconds : 0;
  nlohmann::json j = {{"tokens", st.tokens},
                      {"windows", st.windows},
                      {"context", ctx},
                      {"mean_nll", st.mean_nll()},
                      {"perplexity", perplexity(st)},
                      {"tokens_per_s", tps},
                      {"mode", st.streamed ? "stream" : "windows"}};
  j.update(nlohmann::json::parse(st.kv.to_json()));
  if (f32) {
    j["f32_mean_nll"] = f32->mean_nll();
    j["f32_perplexity"] = perplexity(*f32);
    j["perplexity_delta"] = perplexity(st) - perplexity(*f32);
  }
  return j;
}

int run_score(const ScoreArgs& a) {
  auto m = a.model.load();
  if (!m.ok()) return report(m.error());
  int ctx = a.model.ctx > 0 ? a.model.ctx : static_cast<int>(m->config().ctx);
  auto kv = a.kv.config(*m, ctx);
  if (!kv.ok()) return report(make_error("{}: {}", m->path(), kv.error().message));
  auto in = open_input(a.file);
  if (!in.ok()) return report(in.error());
  const bpe::Tokenizer& tk = m->tokenizer();
  auto ids = tk.encode(in->bytes(), bpe::SpecialMode::kText);
  if (!ids.ok()) return report(make_error("{}: {}", input_name(a.file), ids.error().message));
  model::ScoreOptions so;
  so.ctx = ctx;
  if (tk.add_bos && tk.bos) so.bos = tk.bos;
  so.kv = *kv;
  ThreadPool pool(a.model.thread_count());
  auto st = model::score(*m, pool, *ids, so);
  if (!st.ok()) return report(make_error("{}: {}", m->path(), st.error().message));
  // The f32 reference for a quantized cache: same policy and block size, no budget.
  std::optional<model::ScoreStats> f32;
  if (so.kv.type != kv::KvType::kF32) {
    so.kv.type = kv::KvType::kF32;
    so.kv.budget_bytes = 0;
    auto ref = model::score(*m, pool, *ids, so);
    if (!ref.ok()) return report(make_error("{}: {}", m->path(), ref.error().message));
    f32 = *ref;
  }
  nlohmann::json j = score_json(*st, f32 ? &*f32 : nullptr, ctx);
  Output out;
  if (a.json) {
    out.write(j.dump());
  } else {
    out.write(fmt::format("tokens {}  {}  mean NLL {:.4f} nats  perplexity {:.3f}  {:.0f} tokens/s",
                          st->tokens, mode_text(*st, ctx), st->mean_nll(), perplexity(*st),
                          j["tokens_per_s"].get<double>()));
    if (f32) {
      out.write(fmt::format("  ({}: {:+.4f} vs f32 perplexity {:.3f})",
                            kv::kv_type_name(st->kv.type), perplexity(*st) - perplexity(*f32),
                            perplexity(*f32)));
    }
  }
  out.put('\n');
  out.flush();
  if (a.stats && !a.json) std::fprintf(stderr, "%s\n", j.dump().c_str());
  return 0;
}

}  // namespace

void add_score(CLI::App& app, CommandTable& commands) {
  auto a = std::make_shared<ScoreArgs>();
  CLI::App* sub = app.add_subcommand("score",
                                     "Perplexity of a text under a model (windows of the context, "
                                     "or one stream with --kv-policy)");
  a->model.add(sub);
  a->kv.add(sub);
  sub->add_option("FILE", a->file, "Text to score (default: stdin)");
  sub->add_flag("--json", a->json, "Print one JSON object (with the kv_* statistics)");
  sub->add_flag("--stats", a->stats, "Also print that JSON object as one line on stderr");
  commands.add(sub, [a] { return run_score(*a); });
}

}  // namespace tok::cli
