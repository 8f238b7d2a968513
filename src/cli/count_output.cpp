// Rendering `tok count` results: table, JSON (schema in docs/cost.md), CSV.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/count_model.hpp"
#include "core/byte_format.hpp"
#include "core/output.hpp"
#include "cost/kv_estimate.hpp"
#include "cost/pricing.hpp"

namespace tok::cli {
namespace {

using nlohmann::ordered_json;

cost::CostLine cost_of(const CountReport& r, std::size_t c, std::uint64_t tokens) {
  return cost::price_tokens(*r.columns[c].model, tokens, r.cached_tokens, r.output_tokens);
}

std::string usd(double v) {
  if (v == 0) return "$0";
  if (v < 0.01) return fmt::format("${:.6f}", v);
  return fmt::format("${:.4f}", v);
}

std::string flops_human(double f) {
  const char* units[] = {"", "k", "M", "G", "T", "P", "E"};
  int u = 0;
  while (f >= 1000 && u < 6) f /= 1000, ++u;
  return fmt::format("{:.2f} {}FLOP", f, units[u]);
}

// Rows shown: all, or the --top N largest by the first column.
std::vector<const Row*> shown_rows(const CountReport& r) {
  std::vector<const Row*> rows;
  for (const auto& row : r.rows) rows.push_back(&row);
  if (r.top > 0 && !r.columns.empty()) {
    std::stable_sort(rows.begin(), rows.end(),
                     [](const Row* a, const Row* b) { return a->tokens[0] > b->tokens[0]; });
    if (rows.size() > r.top) rows.resize(r.top);
  }
  return rows;
}

void print_kv(const CountReport& r, Output& out) {
  for (std::size_t c = 0; c < r.columns.size(); ++c) {
    const cost::ModelInfo* m = r.columns[c].model;
    if (!m) continue;
    std::uint64_t tokens = r.total.tokens[c] + r.output_tokens;
    if (!m->kv) {
      out.write(fmt::format("kv {}: no KV shape in the catalog (weights not public)\n", m->id));
      continue;
    }
    cost::KvEstimate e = cost::estimate_kv(*m->kv, tokens);
    cost::CostLine cl = cost_of(r, c, r.total.tokens[c]);
    out.write(fmt::format(
        "kv {}: {} tokens -> KV cache {} f16, {} q8_0, {} q4_0 ({} tokens in 16-token pages, "
        "{} values/token/layer) -> attention {} per full forward pass -> {} at {}/M input\n",
        m->id, tokens, human_bytes(e.bytes_f16), human_bytes(e.bytes_q8_0),
        human_bytes(e.bytes_q4_0), e.paged_tokens, e.values_per_token,
        flops_human(e.attention_flops), usd(cl.total_usd), usd(m->price.input)));
  }
}

// The per-input rows, with and without -m in one column order: token
// counts (one column per model, or "tokens" for a bare encoding), bytes, path.
void print_rows(const CountReport& r, Output& out) {
  bool legacy = r.columns.size() == 1 && !r.columns[0].model;
  std::vector<std::size_t> width;
  std::string head;
  for (const auto& col : r.columns) {
    std::string name = legacy ? std::string("tokens") : col.label;
    width.push_back(std::max<std::size_t>(12, name.size()));
    head += fmt::format("{:>{}} ", name, width.back());
  }
  out.write(fmt::format("{}{:>12}  path\n", head, "bytes"));
  auto line = [&](const Row& row) {
    std::string s;
    for (std::size_t c = 0; c < r.columns.size(); ++c) {
      bool over = r.columns[c].model && !cost_of(r, c, row.tokens[c]).fits;
      s += fmt::format("{:>{}} ", fmt::format("{}{}", over ? "!" : "", row.tokens[c]), width[c]);
    }
    out.write(fmt::format("{}{:>12}  {}\n", s, row.bytes, one_line(row.path)));
  };
  for (const Row* row : shown_rows(r)) line(*row);
  if (r.top > 0 && r.rows.size() > r.top) {
    std::size_t left = r.rows.size() - r.top;
    out.write(fmt::format("{:>12}  ({} more input{} not shown; --top {})\n", "...", left,
                          left == 1 ? "" : "s", r.top));
  }
  if (r.rows.size() > 1) line(r.total);
}

}  // namespace

void print_table(const CountReport& r) {
  Output out;
  print_rows(r, out);
  if (!r.columns[0].model) {
    out.flush();
    return;
  }
  out.write(fmt::format("\n{:<20} {:>12} {:>12} {:>12} {:>12} {:>9}  {}\n", "model", "tokens",
                        "input", r.output_is_max ? "output(max)" : "output", "total", "window",
                        "price date, source"));
  for (std::size_t c = 0; c < r.columns.size(); ++c) {
    const cost::ModelInfo& m = *r.columns[c].model;
    cost::CostLine cl = cost_of(r, c, r.total.tokens[c]);
    std::string window = m.context_window ? fmt::format("{:.1f}%", 100 * cl.window_share) : "?";
    out.write(fmt::format("{:<20} {:>12} {:>12} {:>12} {:>12} {:>9}  {}{}, {}\n", m.id,
                          r.total.tokens[c], usd(cl.input_usd), usd(cl.output_usd),
                          usd(cl.total_usd), window, m.estimate ? "ESTIMATE, " : "",
                          m.price.date, m.price.source));
  }
  if (r.kv) print_kv(r, out);
  out.flush();
}

void print_json(const CountReport& r, bool legacy) {
  ordered_json j;
  if (legacy) {
    j["encoding"] = r.columns[0].label;
    j["files"] = ordered_json::array();
    for (const auto& row : r.rows) {
      j["files"].push_back({{"path", row.path}, {"bytes", row.bytes}, {"tokens", row.tokens[0]}});
    }
    j["total"] = {{"bytes", r.total.bytes}, {"tokens", r.total.tokens[0]}};
  } else {
    j["models"] = ordered_json::array();
    for (std::size_t c = 0; c < r.columns.size(); ++c) {
      const cost::ModelInfo& m = *r.columns[c].model;
      cost::CostLine cl = cost_of(r, c, r.total.tokens[c]);
      ordered_json e;
      e["model"] = m.id;
      e["provider"] = m.provider;
      e["encoding"] = r.columns[c].tokenizer->name();
      e["estimate"] = m.estimate;
      e["context_window"] = m.context_window;
      e["price"] = {{"input_per_mtok", m.price.input}, {"cached_input_per_mtok", m.price.cached_input},
                    {"output_per_mtok", m.price.output}, {"date", m.price.date},
                    {"source", m.price.source}};
      e["files"] = ordered_json::array();
      for (const auto& row : r.rows) {
        cost::CostLine fl = cost_of(r, c, row.tokens[c]);
        e["files"].push_back({{"path", row.path}, {"bytes", row.bytes}, {"tokens", row.tokens[c]},
                              {"input_cost", fl.input_usd}, {"fits", fl.fits}});
      }
      e["total"] = {{"bytes", r.total.bytes},        {"tokens", r.total.tokens[c]},
                    {"cached_tokens", cl.cached_tokens}, {"output_tokens", r.output_tokens},
                    {"input_cost", cl.input_usd},    {"output_cost", cl.output_usd},
                    {"total_cost", cl.total_usd},    {"window_share", cl.window_share},
                    {"fits", cl.fits}};
      if (r.kv && m.kv) {
        cost::KvEstimate kv = cost::estimate_kv(*m.kv, r.total.tokens[c] + r.output_tokens);
        e["kv"] = {{"tokens", kv.tokens},          {"paged_tokens", kv.paged_tokens},
                   {"bytes_f16", kv.bytes_f16},    {"bytes_q8_0", kv.bytes_q8_0},
                   {"bytes_q4_0", kv.bytes_q4_0},  {"attention_flops", kv.attention_flops}};
      }
      j["models"].push_back(std::move(e));
    }
  }
  if (!r.skipped.empty()) j["skipped"] = r.skipped;
  Output out;
  out.write(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  out.put('\n');
  out.flush();
}

void print_csv(const CountReport& r) {
  Output out;
  auto quote = [](const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  out.write(
      "path,bytes,model,encoding,tokens,input_cost,output_cost,total_cost,window_share,estimate\n");
  auto emit = [&](const Row& row, bool total) {
    for (std::size_t c = 0; c < r.columns.size(); ++c) {
      const Column& col = r.columns[c];
      std::string costs = ",,,,";
      if (col.model) {
        cost::CostLine cl = cost::price_tokens(*col.model, row.tokens[c], r.cached_tokens,
                                               total ? r.output_tokens : 0);
        costs = fmt::format("{:.8f},{:.8f},{:.8f},{:.6f},{}", cl.input_usd, cl.output_usd,
                            cl.total_usd, cl.window_share, col.model->estimate);
      }
      out.write(fmt::format("{},{},{},{},{},{}\n", quote(row.path), row.bytes,
                            col.model ? col.model->id : "", col.tokenizer->name(), row.tokens[c],
                            costs));
    }
  };
  for (const auto& row : r.rows) emit(row, false);
  emit(r.total, true);
  out.flush();
}

void warn_limits(const CountReport& r) {
  for (std::size_t c = 0; c < r.columns.size(); ++c) {
    const cost::ModelInfo* m = r.columns[c].model;
    if (!m) continue;
    if (m->estimate) {
      warn(fmt::format("{}: token counts are ESTIMATES: its tokenizer is not public; counted with "
                       "{} as a proxy",
                       m->id, r.columns[c].tokenizer->name()));
    }
    std::size_t shown = 0, over = 0;
    for (const auto& row : r.rows) {
      if (cost::price_tokens(*m, row.tokens[c], 0, r.output_tokens).fits) continue;
      if (++over <= 5) {
        warn(fmt::format("{}: {} tokens{} do not fit the {} context window of {} tokens", row.path,
                         row.tokens[c], r.output_tokens ? " + output" : "", m->id,
                         m->context_window));
        ++shown;
      }
    }
    if (over > shown) warn(fmt::format("... and {} more inputs do not fit {}", over - shown, m->id));
    cost::CostLine t = cost::price_tokens(*m, r.total.tokens[c], 0, r.output_tokens);
    if (r.rows.size() > 1 && !t.fits) {
      warn(fmt::format("the total of {} tokens does not fit the {} context window of {} tokens",
                       r.total.tokens[c] + r.output_tokens, m->id, m->context_window));
    }
    if (t.output_over_limit) {
      warn(fmt::format("{} output tokens exceed {}'s output limit of {}", r.output_tokens, m->id,
                       m->max_output));
    }
  }
}

}  // namespace tok::cli
