// tok models [--search WORD]... [--json] [--models FILE]: the model catalog.
#include <fmt/format.h>

#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>

#include "cli/command.hpp"
#include "core/number_format.hpp"
#include "core/output.hpp"
#include "core/suggest.hpp"
#include "cost/catalog.hpp"
#include "formats/registry.hpp"
#include "text/escape.hpp"

namespace tok::cli {
namespace {

struct ModelsArgs {
  std::vector<std::string> model_files;
  std::vector<std::string> search;
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
  nlohmann::ordered_json j{{"id", m.id},
                           {"aliases", m.aliases},
                           {"provider", m.provider},
                           {"tokenizer", m.tokenizer},
                           {"estimate", m.estimate},
                           {"tokenizer_kind", std::string(cost::tokenizer_kind(m))},
                           {"chat", m.chat},
                           {"context_window", m.context_window},
                           {"max_output", m.max_output}};
  j["price"] = {
      {"input", m.price.input}, {"cached_input", m.price.cached_input}, {"output", m.price.output}};
  j["price"]["tiers"] = nlohmann::ordered_json::array();
  for (const auto& t : m.price.tiers) {
    j["price"]["tiers"].push_back({{"above", t.above},
                                   {"input", t.input},
                                   {"cached_input", t.cached_input},
                                   {"output", t.output}});
  }
  if (m.price.batch) {
    j["price"]["batch"] = {{"factor", m.price.batch->factor}, {"source", m.price.batch->source}};
  }
  j["price"]["date"] = m.price.date;
  j["price"]["source"] = m.price.source;
  if (m.deprecated) j["deprecated"] = true;
  if (m.kv) {
    j["kv"] = {{"layers", m.kv->layers},
               {"heads", m.kv->heads},
               {"kv_heads", m.kv->kv_heads},
               {"head_dim", m.kv->head_dim},
               {"attention", attention_name(m.kv->attention)},
               {"window", m.kv->window},
               {"sliding_layers", m.kv->sliding_layers},
               {"latent_dim", m.kv->latent_dim},
               {"source", m.kv->source}};
  }
  j["catalog"] = m.origin;
  return j;
}

// "$1.25 >200k $2.50": the input rate and each long-context tier's.
std::string input_rates(const cost::Price& p) {
  std::string s = format_usd(p.input);
  for (const auto& t : p.tiers) {
    s += fmt::format(" >{}k {}", t.above / 1000, format_usd(t.input));
  }
  return s;
}

int run_models(const ModelsArgs& a) {
  std::string user_error;
  auto catalog = cost::Catalog::load_default(a.model_files, &user_error);
  if (!catalog.ok()) return report(catalog.error());
  if (!user_error.empty()) warn(user_error + " (its models are left out)");
  std::vector<const cost::ModelInfo*> shown = catalog->search(a.search);
  if (shown.empty() && !a.search.empty()) {
    // Nothing contains every word: the nearest names, as -m suggests them.
    std::string words = fmt::format("{}", fmt::join(a.search, " "));
    auto near = suggest(words, catalog->names());
    std::string hint = near.empty() ? "" : fmt::format("; did you mean {}?", fmt::join(near, ", "));
    return report(make_error("no model in the catalog matches '{}'{}", words, hint));
  }
  Output out;
  if (a.json) {
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    for (const auto* m : shown) j.push_back(to_json(*m));
    out.write(text::escape_json_controls(
        j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace)));
    out.put('\n');
    out.flush();
    return 0;
  }
  std::size_t w = 20;
  for (const auto* m : shown) w = std::max(w, std::min<std::size_t>(one_line(m->id).size(), 48));
  out.write(fmt::format("{:<{}} {:<12} {:<13} {:>9} {:>20} {:>9} {:>9} {:>6} {:>8}  {}\n", "model",
                        w, "provider", "tokenizer", "context", "in $/M (tiers)", "cache $/M",
                        "out $/M", "batch", "kv", "price read"));
  for (const auto* m : shown) {
    std::string kv = m->kv ? attention_name(m->kv->attention) : "-";
    std::string batch =
        m->price.batch ? fmt::format("x{}", format_decimal(m->price.batch->factor, 3)) : "-";
    std::string context = m->context_window ? group_digits(m->context_window) : "?";
    std::string tokenizer = one_line(m->tokenizer) + (m->estimate ? "~" : m->published ? "*" : "");
    out.write(fmt::format("{:<{}} {:<12} {:<13} {:>9} {:>20} {:>9} {:>9} {:>6} {:>8}  {}{}\n",
                          one_line(m->id), w, one_line(m->provider), tokenizer, context,
                          input_rates(m->price), format_usd(m->price.cached_input),
                          format_usd(m->price.output), batch, kv, one_line(m->price.date),
                          m->deprecated ? " (deprecated)" : ""));
  }
  out.write(
      fmt::format("{} of {} models. ~ = tokenizer not public: counts use this encoding as a "
                  "proxy and are estimates; * = the tokenizer the provider published "
                  "(agreement with its counts not verified). >Nk = rates for requests over "
                  "N thousand input tokens; batch = Batch API price factor.\n",
                  shown.size(), catalog->models().size()));
  if (!catalog->models().empty()) {
    out.write(
        fmt::format("prices: {}\n", one_line(catalog->models().front().price.source.substr(
                                        0, catalog->models().front().price.source.find(" (")))));
  }
  out.flush();
  return 0;
}

}  // namespace

void add_models(CLI::App& app, CommandTable& commands) {
  auto a = std::make_shared<ModelsArgs>();
  CLI::App* sub = app.add_subcommand(
      "models", "List the model catalog: tokenizers, windows, prices, KV shapes");
  sub->add_option("--models", a->model_files, "Extra catalog JSON adding or overriding models")
      ->allow_extra_args(false);
  sub->add_option("-s,--search", a->search,
                  "Only models whose id, alias or provider contains WORD (repeatable: all words)")
      ->allow_extra_args(false);
  sub->add_flag("--json", a->json, "Print the catalog as JSON");
  commands.add(sub, [a] { return run_models(*a); });
}

}  // namespace tok::cli
