// Token counts to money and context-window share for one model.
#pragma once

#include <cstdint>

#include "cost/catalog.hpp"

namespace tok::cost {

struct CostLine {
  std::uint64_t input_tokens = 0;
  std::uint64_t cached_tokens = 0;  // of the input tokens, billed at the cached price
  std::uint64_t output_tokens = 0;
  double input_usd = 0;   // uncached + cached input
  double output_usd = 0;
  double total_usd = 0;
  double window_share = 0;  // (input + output) / context window; 0 if unknown
  bool fits = true;         // input + output <= context window
  bool output_over_limit = false;  // output_tokens > max_output
};

CostLine price_tokens(const ModelInfo& m, std::uint64_t input_tokens, std::uint64_t cached_tokens,
                      std::uint64_t output_tokens);

}  // namespace tok::cost
