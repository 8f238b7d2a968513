// tok models [--json] [--models FILE]: the model catalog.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "core/output.hpp"
#include "cost/catalog.hpp"

namespace tok::cli {
namespace {

struct ModelsArgs {
  std::vector<std::string> model_files;
  bool json = false;
};

const char* attention_name(cost::Attention a) {
  switch (a) {
    case cost::Attention::kGqa: return "gqa";
    case cost::Attention::kMha: return "mha";
    case cost::Attention::kMla: return "mla";
    case cost::Attention::kSliding: return "sliding";
  }
  return "?";
}

nlohmann::ordered_json to_json(const cost::ModelInfo& m) {
  nlohmann::ordered_json j{{"id", m.id}, {"aliases", m.aliases}, {"provider", m.provider},
                           {"tokenizer", m.tokenizer}, {"estimate", m.estimate}, {"chat", m.chat},
                           {"context_window", m.context_window}, {"max_output", m.max_output}};
  j["price"] = {{"input", m.price.input}, {"cached_input", m.price.cached_input},
                {"output", m.price.output}, {"date", m.price.date}, {"source", m.price.source}};
  if (m.kv) {
    j["kv"] = {{"layers", m.kv->layers}, {"heads", m.kv->heads}, {"kv_heads", m.kv->kv_heads},
               {"head_dim", m.kv->head_dim}, {"attention", attention_name(m.kv->attention)},
               {"window", m.kv->window}, {"sliding_layers", m.kv->sliding_layers},
               {"latent_dim", m.kv->latent_dim}, {"source", m.kv->source}};
  }
  j["catalog"] = m.origin;
  return j;
}

int run_models(const ModelsArgs& a) {
  std::string user_error;
  auto catalog = cost::Catalog::load_default(a.model_files, &user_error);
  if (!catalog.ok()) return report(catalog.error());
  if (!user_error.empty()) warn(user_error + " (its models are left out)");
  Output out;
  if (a.json) {
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    for (const auto& m : catalog->models()) j.push_back(to_json(m));
    out.write(j.dump(1));
    out.put('\n');
    out.flush();
    return 0;
  }
  out.write(fmt::format("{:<20} {:<10} {:<13} {:>9} {:>8} {:>8} {:>8} {:>8}  {}\n", "model",
                        "provider", "tokenizer", "context", "in $/M", "cache $/M", "out $/M",
                        "kv", "price read"));
  for (const auto& m : catalog->models()) {
    std::string kv = m.kv ? attention_name(m.kv->attention) : "-";
    out.write(fmt::format("{:<20} {:<10} {:<13} {:>9} {:>8} {:>8} {:>8} {:>8}  {}\n", m.id,
                          m.provider, m.tokenizer + (m.estimate ? "~" : ""), m.context_window,
                          m.price.input, m.price.cached_input, m.price.output, kv, m.price.date));
  }
  out.write("~ = tokenizer not public: counts use this encoding as a proxy and are estimates.\n");
  if (!catalog->models().empty()) {
    out.write(fmt::format("prices: {}\n", catalog->models().front().price.source.substr(
                                              0, catalog->models().front().price.source.find(" ("))));
  }
  out.flush();
  return 0;
}

}  // namespace

void add_models(CLI::App& app, Registry& r) {
  auto a = std::make_shared<ModelsArgs>();
  CLI::App* sub = app.add_subcommand("models", "List the model catalog: tokenizers, windows, prices, KV shapes");
  sub->add_option("--models", a->model_files, "Extra catalog JSON adding or overriding models")->allow_extra_args(false);
  sub->add_flag("--json", a->json, "Print the catalog as JSON");
  r.add(sub, [a] { return run_models(*a); });
}

}  // namespace tok::cli
