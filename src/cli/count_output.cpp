// Rendering `tok count` results: table, JSON (built by cost::count_json, the
// value Python's count_files returns too; schema in docs/cost.md), CSV.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/count_model.hpp"
#include "core/number_format.hpp"
#include "core/output.hpp"
#include "cost/count_report.hpp"
#include "cost/kv_estimate.hpp"
#include "cost/pricing.hpp"
#include "text/escape.hpp"

namespace tok::cli {
namespace {

using cost::inputs_over_window;
using cost::total_is_one_request;
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
    out.write(
        "total: each input priced as one request at its own tier, summed (--total: as one "
        "request)\n");
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
  for (const auto& col : r.columns)
    id_w = std::max(id_w, col.model ? one_line(col.model->id).size() : 0);
  out.write(fmt::format("\n{:<{}} {:>12} {:>12} {:>12} {:>12} {:>9}  {:<26} {}\n", "model", id_w,
                        "tokens", "input", r.output_is_max ? "output(max)" : "output", "total",
                        "window", "in/out $/M, tier", "price date, source"));
  for (std::size_t c = 0; c < r.columns.size(); ++c) {
    if (!r.columns[c].model) continue;  // an -e encoding beside the models: counts only
    const cost::ModelInfo& m = *r.columns[c].model;
    cost::CostLine cl = total_cost(r, c);
    // The largest request's share (the whole total's with --total); '!': over.
    std::string window = m.context_window
                             ? fmt::format("{}{:.1f}%", cl.fits ? "" : "!", 100 * cl.window_share)
                             : "?";
    std::string rates = rates_text(cl.rates) + " " + cost::tier_label(cl);
    const char* kind = m.estimate ? "ESTIMATE, " : m.published ? "published tokenizer, " : "";
    out.write(fmt::format("{:<{}} {:>12} {:>12} {:>12} {:>12} {:>9}  {:<26} {}{}, {}\n",
                          one_line(m.id), id_w, r.total.tokens[c], usd(cl.input_usd),
                          usd(cl.output_usd), usd(cl.total_usd), window, rates, kind,
                          one_line(m.price.date), one_line(m.price.source)));
  }
  print_table_notes(r, out);
  if (r.kv) print_kv(r, out);
  out.flush();
}

void print_json(const CountReport& r, bool legacy) {
  ordered_json j = cost::count_json(r, legacy);
  Output out;
  out.write(
      text::escape_json_controls(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
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
                            quote(col.model ? one_line(col.model->id) : ""),
                            quote(one_line(col.tokenizer->name())), row.tokens[c], costs));
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
      warn(
          fmt::format("{}: token counts are ESTIMATES: its tokenizer is not public; counted with "
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
    if (over > shown)
      warn(fmt::format("... and {} more inputs do not fit {}", over - shown, m->id));
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
