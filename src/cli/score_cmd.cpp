// tok score [-m MODEL] [FILE]: how well the model predicts a text (mean
// negative log-likelihood per token, perplexity), in windows of the context.
#include <nlohmann/json.hpp>

#include <cmath>

#include "cli/command.hpp"
#include "cli/input.hpp"
#include "cli/runtime_options.hpp"
#include "core/output.hpp"
#include "model/generator.hpp"

namespace tok::cli {
namespace {

struct ScoreArgs {
  RuntimeOptions model;
  std::string file;
  bool json = false;
};

int run_score(const ScoreArgs& a) {
  auto m = a.model.load();
  if (!m.ok()) return report(m.error());
  auto in = open_input(a.file);
  if (!in.ok()) return report(in.error());
  const bpe::Tokenizer& tk = m->tokenizer();
  auto ids = tk.encode(in->bytes(), bpe::SpecialMode::kText);
  if (!ids.ok()) return report(ids.error());
  int ctx = a.model.ctx > 0 ? a.model.ctx : static_cast<int>(m->config().ctx);
  std::optional<bpe::TokenId> bos;
  if (tk.add_bos && tk.bos) bos = tk.bos;
  model::ThreadPool pool(a.model.thread_count());
  auto st = model::score(*m, pool, *ids, ctx, bos);
  if (!st.ok()) return report(make_error("{}: {}", m->path(), st.error().message));
  double tps = st->seconds > 0 ? static_cast<double>(st->tokens) / st->seconds : 0;
  Output out;
  if (a.json) {
    nlohmann::json j = {{"tokens", st->tokens},       {"windows", st->windows},
                        {"context", ctx},             {"mean_nll", st->mean_nll()},
                        {"perplexity", std::exp(st->mean_nll())}, {"tokens_per_s", tps}};
    out.write(j.dump());
  } else {
    out.write(fmt::format("tokens {}  windows {} (context {})  mean NLL {:.4f} nats  perplexity {:.3f}  "
                          "{:.0f} tokens/s",
                          st->tokens, st->windows, ctx, st->mean_nll(), std::exp(st->mean_nll()), tps));
  }
  out.put('\n');
  out.flush();
  return 0;
}

}  // namespace

void add_score(CLI::App& app, Registry& r) {
  auto a = std::make_shared<ScoreArgs>();
  CLI::App* sub = app.add_subcommand("score", "Perplexity of a text under a model (windows of the context length)");
  a->model.add(sub);
  sub->add_option("FILE", a->file, "Text to score (default: stdin)");
  sub->add_flag("--json", a->json, "Print one JSON object");
  r.add(sub, [a] { return run_score(*a); });
}

}  // namespace tok::cli
