// Rendering `tok count` results: table, JSON (schema in docs/cost.md), CSV.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/count_model.hpp"
#include "core/number_format.hpp"
#include "core/output.hpp"
#include "cost/kv_estimate.hpp"
#include "cost/pricing.hpp"
#include "text/escape.hpp"

namespace tok::cli {
namespace {

using nlohmann::ordered_json;

std::string usd(double v) { return format_usd(v); }

// "$2.50/$15.00": the input and output rates a bill used, per million tokens.
std::string rates_text(const cost::Rates& x) {
  return fmt::format("{}/{}", usd(x.input), usd(x.output));
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
    cost::CostLine cl = total_cost(r, c);
    out.write(fmt::format(
        "kv {}: {} tokens -> KV cache {} f16, {} q8_0, {} q4_0 ({} tokens in 16-token pages, "
        "{} values/token/layer) -> attention {} per full forward pass -> cost {} = {} input "
        "at {}/M + {} output at {}/M\n",
        m->id, tokens, human_bytes(e.bytes_f16), human_bytes(e.bytes_q8_0),
        human_bytes(e.bytes_q4_0), e.paged_tokens, e.values_per_token,
        si_scaled(e.attention_flops, "FLOP"), usd(cl.total_usd), usd(cl.input_usd),
        usd(cl.rates.input), usd(cl.output_usd), usd(cl.rates.output)));
  }
}

// The per-input rows, with and without -m in one column order: token
// counts (one column per model, or "tokens" for a bare encoding), bytes, path.
void print_rows(const CountReport& r, Output& out) {
  bool legacy = r.columns.size() == 1 && !r.columns[0].model;
  std::vector<std::size_t> width;
  std::string head;
  for (const auto& col : r.columns) {
    std::string name = legacy ? std::string("tokens") : one_line(col.label);
    width.push_back(std::max<std::size_t>(12, name.size()));
    head += fmt::format("{:>{}} ", name, width.back());
  }
  out.write(fmt::format("{}{:>12}  path\n", head, "bytes"));
  auto line = [&](const Row& row) {
    std::string s;
    for (std::size_t c = 0; c < r.columns.size(); ++c) {
      bool over = r.columns[c].model && !row_cost(r, c, row).fits;
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

cost::CostLine row_cost(const CountReport& r, std::size_t c, const Row& row) {
  std::uint64_t output = r.per_request ? row.output : r.output_tokens;
  return cost::price_request(*r.columns[c].model, {row.tokens[c], r.cached_tokens, output},
                             r.batch_rates);
}

namespace {

bool total_is_one_request(const CountReport& r) { return r.one_request && !r.per_request; }

// Inputs that alone overflow the model's context window.
std::size_t inputs_over_window(const CountReport& r, std::size_t c) {
  std::size_t n = 0;
  for (const auto& row : r.rows) n += !row_cost(r, c, row).fits;
  return n;
}

}  // namespace

cost::CostLine total_cost(const CountReport& r, std::size_t c) {
  const cost::ModelInfo& m = *r.columns[c].model;
  if (total_is_one_request(r)) {
    return cost::price_request(m, {r.total.tokens[c], r.cached_tokens, r.output_tokens}, r.batch_rates);
  }
  std::vector<cost::Request> requests;
  for (const auto& row : r.rows) {
    requests.push_back({row.tokens[c], r.cached_tokens, r.per_request ? row.output : r.output_tokens});
  }
  return cost::price_requests(m, requests, r.batch_rates);
}

namespace {

// Under the model lines: which inputs do not fit, and what the total means.
void print_table_notes(const CountReport& r, Output& out) {
  for (std::size_t c = 0; c < r.columns.size(); ++c) {
    const cost::ModelInfo* m = r.columns[c].model;
    std::size_t over = m ? inputs_over_window(r, c) : 0;
    if (over == 0) continue;
    out.write(fmt::format("! {}: {} of {} input{} do{} not fit its context window of {} tokens\n",
                          m->id, over, r.rows.size(), r.rows.size() == 1 ? "" : "s",
                          over == 1 ? "es" : "", group_digits(m->context_window)));
  }
  if (total_is_one_request(r)) {
    out.write("total: priced as one request holding every input (--total)\n");
  } else if (r.rows.size() > 1 && !r.per_request) {
    out.write("total: each input priced as one request at its own tier, summed (--total: as one request)\n");
  }
}

}  // namespace

void print_table(const CountReport& r) {
  Output out;
  print_rows(r, out);
  if (std::none_of(r.columns.begin(), r.columns.end(), [](const auto& c) { return c.model; })) {
    out.flush();
    return;
  }
  // "in/out $/M, tier": the rates each model was billed at, and which tier.
  std::size_t id_w = 20;
  for (const auto& col : r.columns) id_w = std::max(id_w, col.model ? one_line(col.model->id).size() : 0);
  out.write(fmt::format("\n{:<{}} {:>12} {:>12} {:>12} {:>12} {:>9}  {:<26} {}\n", "model", id_w,
                        "tokens", "input", r.output_is_max ? "output(max)" : "output", "total",
                        "window", "in/out $/M, tier", "price date, source"));
  for (std::size_t c = 0; c < r.columns.size(); ++c) {
    if (!r.columns[c].model) continue;  // an -e encoding beside the models: counts only
    const cost::ModelInfo& m = *r.columns[c].model;
    cost::CostLine cl = total_cost(r, c);
    // The largest request's share (the whole total's with --total); '!': over.
    std::string window =
        m.context_window ? fmt::format("{}{:.1f}%", cl.fits ? "" : "!", 100 * cl.window_share) : "?";
    std::string rates = rates_text(cl.rates) + " " + cost::tier_label(cl);
    const char* kind = m.estimate ? "ESTIMATE, " : m.published ? "published tokenizer, " : "";
    out.write(fmt::format("{:<{}} {:>12} {:>12} {:>12} {:>12} {:>9}  {:<26} {}{}, {}\n", one_line(m.id),
                          id_w, r.total.tokens[c], usd(cl.input_usd), usd(cl.output_usd),
                          usd(cl.total_usd), window, rates, kind, one_line(m.price.date),
                          one_line(m.price.source)));
  }
  print_table_notes(r, out);
  if (r.kv) print_kv(r, out);
  out.flush();
}

namespace {

// The rates a bill used and which tier they are ("tier_above": 0 = base rates).
ordered_json rates_json(const cost::CostLine& cl) {
  return {{"label", cost::tier_label(cl)},
          {"tier_above", cl.rates.tier_above},
          {"batch", cl.batch},
          {"input_per_mtok", cl.rates.input},
          {"cached_input_per_mtok", cl.rates.cached_input},
          {"output_per_mtok", cl.rates.output},
          {"requests", cl.requests},
          {"requests_above_base", cl.requests_above_base}};
}

ordered_json price_json(const cost::Price& p) {
  ordered_json j = {{"input_per_mtok", p.input}, {"cached_input_per_mtok", p.cached_input},
                    {"output_per_mtok", p.output}};
  j["tiers"] = ordered_json::array();
  for (const auto& t : p.tiers) {
    j["tiers"].push_back({{"above", t.above}, {"input_per_mtok", t.input},
                          {"cached_input_per_mtok", t.cached_input}, {"output_per_mtok", t.output}});
  }
  j["batch_factor"] = p.batch ? ordered_json(p.batch->factor) : ordered_json(nullptr);
  if (p.batch) j["batch_source"] = p.batch->source;
  j["date"] = p.date;
  j["source"] = p.source;
  return j;
}

ordered_json model_json(const CountReport& r, std::size_t c) {
  const cost::ModelInfo& m = *r.columns[c].model;
  cost::CostLine cl = total_cost(r, c);
  ordered_json e;
  e["model"] = m.id;
  e["provider"] = m.provider;
  e["encoding"] = r.columns[c].tokenizer->name();
  e["estimate"] = m.estimate;
  e["tokenizer_kind"] = std::string(cost::tokenizer_kind(m));
  e["context_window"] = m.context_window;
  e["price"] = price_json(m.price);
  e["files"] = ordered_json::array();
  for (const auto& row : r.rows) {
    cost::CostLine fl = row_cost(r, c, row);
    ordered_json f = {{"path", row.path}, {"bytes", row.bytes}, {"tokens", row.tokens[c]},
                      {"input_cost", fl.input_usd}, {"fits", fl.fits},
                      {"tier", cost::tier_label(fl)}};
    if (r.per_request) f["output_tokens"] = row.output, f["total_cost"] = fl.total_usd;
    e["files"].push_back(std::move(f));
  }
  e["total"] = {{"bytes", r.total.bytes},        {"tokens", r.total.tokens[c]},
                {"cached_tokens", cl.cached_tokens}, {"output_tokens", cl.output_tokens},
                {"input_cost", cl.input_usd},    {"output_cost", cl.output_usd},
                {"total_cost", cl.total_usd},    {"window_share", cl.window_share},
                {"fits", cl.fits},               {"rates", rates_json(cl)},
                {"one_request", total_is_one_request(r)},
                {"inputs_over_window", inputs_over_window(r, c)}};
  if (r.kv && m.kv) {
    cost::KvEstimate kv = cost::estimate_kv(*m.kv, r.total.tokens[c] + r.output_tokens);
    e["kv"] = {{"tokens", kv.tokens},          {"paged_tokens", kv.paged_tokens},
               {"bytes_f16", kv.bytes_f16},    {"bytes_q8_0", kv.bytes_q8_0},
               {"bytes_q4_0", kv.bytes_q4_0},  {"attention_flops", kv.attention_flops}};
  }
  return e;
}

// An -e encoding counted beside the models: tokens only.
ordered_json encoding_json(const CountReport& r, std::size_t c) {
  ordered_json e;
  e["encoding"] = r.columns[c].tokenizer->name();
  e["files"] = ordered_json::array();
  for (const auto& row : r.rows) {
    e["files"].push_back({{"path", row.path}, {"bytes", row.bytes}, {"tokens", row.tokens[c]}});
  }
  e["total"] = {{"bytes", r.total.bytes}, {"tokens", r.total.tokens[c]}};
  return e;
}

}  // namespace

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
      if (r.columns[c].model) {
        j["models"].push_back(model_json(r, c));
      } else {
        j["encodings"].push_back(encoding_json(r, c));
      }
    }
  }
  if (!r.skipped.empty()) j["skipped"] = r.skipped;
  Output out;
  out.write(text::escape_json_controls(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
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
      "path,bytes,model,encoding,tokens,input_cost,output_cost,total_cost,window_share,estimate,"
      "tier,fits\n");
  // Plain decimals (never an exponent), 6 significant digits.
  auto num = [](double v) { return format_decimal(v, 6); };
  auto emit = [&](const Row& row, bool total) {
    for (std::size_t c = 0; c < r.columns.size(); ++c) {
      const Column& col = r.columns[c];
      std::string costs = ",,,,,,";
      if (col.model) {
        // A file row is input only (as before); per-request rows carry their output.
        cost::CostLine cl = total ? total_cost(r, c) : row_cost(r, c, row);
        if (!total && !r.per_request) cl.total_usd = cl.input_usd, cl.output_usd = 0;
        costs = fmt::format("{},{},{},{},{},{},{}", num(cl.input_usd), num(cl.output_usd),
                            num(cl.total_usd), num(cl.window_share), col.model->estimate,
                            quote(cost::tier_label(cl)), cl.fits);
      }
      out.write(fmt::format("{},{},{},{},{},{}\n", quote(one_line(row.path)), row.bytes,
                            quote(col.model ? one_line(col.model->id) : ""), quote(one_line(col.tokenizer->name())),
                            row.tokens[c],
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
      if (row_cost(r, c, row).fits) continue;
      if (++over <= 5) {
        std::uint64_t out = r.per_request ? row.output : r.output_tokens;
        warn(fmt::format("{}: {} tokens{} do not fit the {} context window of {} tokens", row.path,
                         row.tokens[c], out ? " + output" : "", m->id, m->context_window));
        ++shown;
      }
    }
    if (over > shown) warn(fmt::format("... and {} more inputs do not fit {}", over - shown, m->id));
    cost::CostLine t = total_cost(r, c);
    if (r.rows.size() > 1 && total_is_one_request(r) && !t.fits) {
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
