#include <doctest/doctest.h>

#include "cost/pricing.hpp"

using namespace tok;

namespace {
// Gemini 2.5 Pro's shape: $1.25/$10 per M, $2.50/$15 above 200k input tokens.
cost::ModelInfo tiered() {
  cost::ModelInfo m;
  m.id = "tiered";
  m.context_window = 1000000;
  m.price.input = 1.25;
  m.price.cached_input = 0.125;
  m.price.output = 10;
  m.price.tiers = {{200000, 2.5, 0.25, 15}};
  m.price.batch = cost::BatchRate{0.5, "doc"};
  return m;
}
}  // namespace

TEST_CASE("a request over a tier's threshold is billed at that tier for all its tokens") {
  cost::ModelInfo m = tiered();
  cost::CostLine at = cost::price_request(m, {200000, 0, 0});
  CHECK(at.rates.tier_above == 0);
  CHECK(at.input_usd == doctest::Approx(0.25));
  cost::CostLine over = cost::price_request(m, {274081, 0, 1000});
  CHECK(over.rates.tier_above == 200000);
  CHECK(over.input_usd == doctest::Approx(274081 * 2.5 / 1e6));
  CHECK(over.output_usd == doctest::Approx(1000 * 15 / 1e6));
  CHECK(cost::tier_label(over) == "over 200k");
  CHECK(cost::tier_label(at) == "standard");
}

TEST_CASE("batch rates scale every rate by the model's factor") {
  cost::ModelInfo m = tiered();
  cost::CostLine b = cost::price_request(m, {1000000, 0, 0}, true);
  CHECK(b.batch);
  CHECK(b.input_usd == doctest::Approx(1.25));  // 2.5 * 0.5 * 1M tokens
  CHECK(cost::tier_label(b) == "batch, over 200k");
  m.price.batch.reset();  // no batch discount known: standard rates
  cost::CostLine s = cost::price_request(m, {1000, 0, 0}, true);
  CHECK(!s.batch);
  CHECK(s.input_usd == doctest::Approx(1000 * 1.25 / 1e6));
}

TEST_CASE("several requests are billed each at its own tier and summed") {
  cost::ModelInfo m = tiered();
  cost::CostLine sum = cost::price_requests(m, {{100000, 0, 10}, {300000, 0, 10}});
  CHECK(sum.requests == 2);
  CHECK(sum.requests_above_base == 1);
  CHECK(sum.input_usd == doctest::Approx((100000 * 1.25 + 300000 * 2.5) / 1e6));
  CHECK(sum.output_usd == doctest::Approx((10 * 10 + 10 * 15) / 1e6));
  CHECK(sum.input_tokens == 400000);
  CHECK(cost::tier_label(sum) == "mixed: 1 of 2 requests over 200k");
  // One prompt of the same 400k tokens would be billed all at the higher tier.
  CHECK(cost::price_request(m, {400000, 0, 20}).total_usd > sum.total_usd);
}

TEST_CASE("cached input tokens use the tier's cached rate") {
  cost::ModelInfo m = tiered();
  cost::CostLine c = cost::price_request(m, {300000, 100000, 0});
  CHECK(c.input_usd == doctest::Approx((200000 * 2.5 + 100000 * 0.25) / 1e6));
}
