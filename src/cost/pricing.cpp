#include "cost/pricing.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace tok::cost {

namespace {

// 200000 -> "200k", 1048576 -> "1048576" (only exact thousands shortened).
std::string tokens_short(std::uint64_t n) {
  return n % 1000 == 0 ? fmt::format("{}k", n / 1000) : fmt::format("{}", n);
}

}  // namespace

Rates rates_for(const Price& p, std::uint64_t input_tokens, bool batch) {
  Rates r{p.input, p.cached_input, p.output, 0, false};
  for (const auto& t : p.tiers) {
    if (input_tokens > t.above) r = {t.input, t.cached_input, t.output, t.above, false};
  }
  if (batch && p.batch) {
    r.input *= p.batch->factor;
    r.cached_input *= p.batch->factor;
    r.output *= p.batch->factor;
    r.batch = true;
  }
  return r;
}

CostLine price_request(const ModelInfo& m, const Request& q, bool batch) {
  CostLine c;
  c.requests = 1;
  c.input_tokens = q.input;
  c.cached_tokens = std::min(q.cached, q.input);
  c.output_tokens = q.output;
  c.rates = rates_for(m.price, q.input, batch);
  c.batch = c.rates.batch;
  c.requests_above_base = c.rates.tier_above > 0;
  double uncached = static_cast<double>(q.input - c.cached_tokens);
  c.input_usd =
      (uncached * c.rates.input + static_cast<double>(c.cached_tokens) * c.rates.cached_input) /
      1e6;
  c.output_usd = static_cast<double>(q.output) * c.rates.output / 1e6;
  c.total_usd = c.input_usd + c.output_usd;
  std::uint64_t used = q.input + q.output;
  if (m.context_window > 0) {
    c.window_share = static_cast<double>(used) / static_cast<double>(m.context_window);
    c.fits = used <= m.context_window;
  }
  c.output_over_limit = m.max_output > 0 && q.output > m.max_output;
  return c;
}

CostLine price_requests(const ModelInfo& m, const std::vector<Request>& rs, bool batch) {
  CostLine sum;
  sum.rates = rates_for(m.price, 0, batch);
  sum.batch = sum.rates.batch;
  std::uint64_t largest = 0;
  for (const auto& q : rs) {
    CostLine c = price_request(m, q, batch);
    sum.input_tokens += c.input_tokens;
    sum.cached_tokens += c.cached_tokens;
    sum.output_tokens += c.output_tokens;
    sum.input_usd += c.input_usd;
    sum.output_usd += c.output_usd;
    sum.requests += 1;
    sum.requests_above_base += c.requests_above_base;
    sum.fits = sum.fits && c.fits;
    sum.output_over_limit = sum.output_over_limit || c.output_over_limit;
    sum.window_share = std::max(sum.window_share, c.window_share);
    if (sum.requests == 1 || q.input > largest) {
      largest = q.input;
      sum.rates = c.rates;
    }
  }
  sum.total_usd = sum.input_usd + sum.output_usd;
  return sum;
}

CostLine price_tokens(const ModelInfo& m, std::uint64_t input_tokens, std::uint64_t cached_tokens,
                      std::uint64_t output_tokens) {
  return price_request(m, {input_tokens, cached_tokens, output_tokens});
}

std::string tier_label(const CostLine& c) {
  std::string tier;
  if (c.requests_above_base > 0 && c.requests_above_base < c.requests) {
    tier = fmt::format("mixed: {} of {} requests over {}", c.requests_above_base, c.requests,
                       tokens_short(c.rates.tier_above));
  } else if (c.rates.tier_above > 0) {
    tier = "over " + tokens_short(c.rates.tier_above);
  }
  if (c.batch) return tier.empty() ? "batch" : "batch, " + tier;
  return tier.empty() ? "standard" : tier;
}

}  // namespace tok::cost
