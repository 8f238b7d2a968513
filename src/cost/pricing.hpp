// Token counts to money and context-window share for one model.
//
// Billing follows the providers: each request is billed on its own, at the
// rates of the long-context tier its input tokens fall in (the whole request
// at that tier's rates, as genai-prices' calcPrice computes), times the
// model's batch factor when it is sent through a Batch API. Several requests
// (a batch file) are billed one by one and summed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cost/catalog.hpp"

namespace tok::cost {

// One request: its input tokens (of which `cached` billed at the cached-input
// rate) and output tokens.
struct Request {
  std::uint64_t input = 0;
  std::uint64_t cached = 0;
  std::uint64_t output = 0;
};

// USD per million tokens that apply to one request.
struct Rates {
  double input = 0;
  double cached_input = 0;
  double output = 0;
  std::uint64_t tier_above = 0;  // the tier's threshold; 0 = the base rates
  bool batch = false;            // batch factor applied
};

// The rates of a request with `input_tokens` input tokens; `batch` applies the
// model's batch factor (a model without one keeps its standard rates).
Rates rates_for(const Price& p, std::uint64_t input_tokens, bool batch);

struct CostLine {
  std::uint64_t input_tokens = 0;
  std::uint64_t cached_tokens = 0;  // of the input tokens, billed at the cached price
  std::uint64_t output_tokens = 0;
  double input_usd = 0;  // uncached + cached input
  double output_usd = 0;
  double total_usd = 0;
  double window_share = 0;  // (input + output) / context window, largest request; 0 if unknown
  bool fits = true;         // every request's input + output <= context window
  bool output_over_limit = false;  // a request's output tokens > max_output
  Rates rates;                     // of the request (several: of the largest)
  std::size_t requests = 0;
  std::size_t requests_above_base = 0;  // requests billed at a long-context tier
  bool batch = false;                   // billed at batch rates
};

CostLine price_request(const ModelInfo& m, const Request& r, bool batch = false);
// Each request at its own tier, summed.
CostLine price_requests(const ModelInfo& m, const std::vector<Request>& rs, bool batch = false);

// One request (kept for the callers that bill a single prompt).
CostLine price_tokens(const ModelInfo& m, std::uint64_t input_tokens, std::uint64_t cached_tokens,
                      std::uint64_t output_tokens);

// What the rates were, for people: "standard", "batch", "over 200k",
// "batch, over 200k", "mixed: 3 of 10 requests over 200k".
std::string tier_label(const CostLine& c);

}  // namespace tok::cost
