#include "cost/count_report.hpp"

#include "cost/kv_estimate.hpp"

namespace tok::cost {

using nlohmann::ordered_json;

void CountReport::sum_rows() {
  total.bytes = 0;
  total.tokens.assign(columns.size(), 0);
  for (const auto& row : rows) {
    total.bytes += row.bytes;
    for (std::size_t c = 0; c < columns.size(); ++c) total.tokens[c] += row.tokens[c];
  }
}

CostLine row_cost(const CountReport& r, std::size_t c, const CountRow& row) {
  std::uint64_t output = r.per_request ? row.output : r.output_tokens;
  return price_request(*r.columns[c].model, {row.tokens[c], r.cached_tokens, output},
                       r.batch_rates);
}

bool total_is_one_request(const CountReport& r) { return r.one_request && !r.per_request; }

std::size_t inputs_over_window(const CountReport& r, std::size_t c) {
  std::size_t n = 0;
  for (const auto& row : r.rows) n += !row_cost(r, c, row).fits;
  return n;
}

CostLine total_cost(const CountReport& r, std::size_t c) {
  const ModelInfo& m = *r.columns[c].model;
  if (total_is_one_request(r)) {
    return price_request(m, {r.total.tokens[c], r.cached_tokens, r.output_tokens}, r.batch_rates);
  }
  std::vector<Request> requests;
  for (const auto& row : r.rows) {
    requests.push_back(
        {row.tokens[c], r.cached_tokens, r.per_request ? row.output : r.output_tokens});
  }
  return price_requests(m, requests, r.batch_rates);
}

namespace {

// The rates a bill used and which tier they are ("tier_above": 0 = base rates).
ordered_json rates_json(const CostLine& cl) {
  return {{"label", tier_label(cl)},
          {"tier_above", cl.rates.tier_above},
          {"batch", cl.batch},
          {"input_per_mtok", cl.rates.input},
          {"cached_input_per_mtok", cl.rates.cached_input},
          {"output_per_mtok", cl.rates.output},
          {"requests", cl.requests},
          {"requests_above_base", cl.requests_above_base}};
}

ordered_json price_json(const Price& p) {
  ordered_json j = {{"input_per_mtok", p.input},
                    {"cached_input_per_mtok", p.cached_input},
                    {"output_per_mtok", p.output}};
  j["tiers"] = ordered_json::array();
  for (const auto& t : p.tiers) {
    j["tiers"].push_back({{"above", t.above},
                          {"input_per_mtok", t.input},
                          {"cached_input_per_mtok", t.cached_input},
                          {"output_per_mtok", t.output}});
  }
  j["batch_factor"] = p.batch ? ordered_json(p.batch->factor) : ordered_json(nullptr);
  if (p.batch) j["batch_source"] = p.batch->source;
  j["date"] = p.date;
  j["source"] = p.source;
  return j;
}

ordered_json model_json(const CountReport& r, std::size_t c) {
  const ModelInfo& m = *r.columns[c].model;
  CostLine cl = total_cost(r, c);
  ordered_json e;
  e["model"] = m.id;
  e["provider"] = m.provider;
  e["encoding"] = r.columns[c].tokenizer->name();
  e["estimate"] = m.estimate;
  e["tokenizer_kind"] = std::string(tokenizer_kind(m));
  e["context_window"] = m.context_window;
  e["price"] = price_json(m.price);
  e["files"] = ordered_json::array();
  for (const auto& row : r.rows) {
    CostLine fl = row_cost(r, c, row);
    ordered_json f = {{"path", row.path},           {"bytes", row.bytes}, {"tokens", row.tokens[c]},
                      {"input_cost", fl.input_usd}, {"fits", fl.fits},    {"tier", tier_label(fl)}};
    if (r.per_request) f["output_tokens"] = row.output, f["total_cost"] = fl.total_usd;
    e["files"].push_back(std::move(f));
  }
  e["total"] = {{"bytes", r.total.bytes},
                {"tokens", r.total.tokens[c]},
                {"cached_tokens", cl.cached_tokens},
                {"output_tokens", cl.output_tokens},
                {"input_cost", cl.input_usd},
                {"output_cost", cl.output_usd},
                {"total_cost", cl.total_usd},
                {"window_share", cl.window_share},
                {"fits", cl.fits},
                {"rates", rates_json(cl)},
                {"one_request", total_is_one_request(r)},
                {"inputs_over_window", inputs_over_window(r, c)}};
  if (r.kv && m.kv) {
    KvEstimate kv = estimate_kv(*m.kv, r.total.tokens[c] + r.output_tokens);
    e["kv"] = {{"tokens", kv.tokens},         {"paged_tokens", kv.paged_tokens},
               {"bytes_f16", kv.bytes_f16},   {"bytes_q8_0", kv.bytes_q8_0},
               {"bytes_q4_0", kv.bytes_q4_0}, {"attention_flops", kv.attention_flops}};
  }
  return e;
}

// Per file and in total: bytes and one column's tokens.
ordered_json counts_json(const CountReport& r, std::size_t c) {
  ordered_json files = ordered_json::array();
  for (const auto& row : r.rows) {
    files.push_back({{"path", row.path}, {"bytes", row.bytes}, {"tokens", row.tokens[c]}});
  }
  return files;
}

}  // namespace

ordered_json count_json(const CountReport& r, bool legacy) {
  ordered_json j;
  if (legacy) {
    j["encoding"] = r.columns[0].label;
    j["files"] = counts_json(r, 0);
    j["total"] = {{"bytes", r.total.bytes}, {"tokens", r.total.tokens[0]}};
  } else {
    j["models"] = ordered_json::array();
    for (std::size_t c = 0; c < r.columns.size(); ++c) {
      if (r.columns[c].model) {
        j["models"].push_back(model_json(r, c));
        continue;
      }
      // An encoding counted beside the models: tokens only.
      ordered_json e;
      e["encoding"] = r.columns[c].tokenizer->name();
      e["files"] = counts_json(r, c);
      e["total"] = {{"bytes", r.total.bytes}, {"tokens", r.total.tokens[c]}};
      j["encodings"].push_back(std::move(e));
    }
  }
  if (!r.skipped.empty()) j["skipped"] = r.skipped;
  return j;
}

}  // namespace tok::cost
