#include "cost/pricing.hpp"

#include <algorithm>

namespace tok::cost {

CostLine price_tokens(const ModelInfo& m, std::uint64_t input_tokens, std::uint64_t cached_tokens,
                      std::uint64_t output_tokens) {
  CostLine c;
  c.input_tokens = input_tokens;
  c.cached_tokens = std::min(cached_tokens, input_tokens);
  c.output_tokens = output_tokens;
  double uncached = static_cast<double>(input_tokens - c.cached_tokens);
  c.input_usd = (uncached * m.price.input + static_cast<double>(c.cached_tokens) * m.price.cached_input) / 1e6;
  c.output_usd = static_cast<double>(output_tokens) * m.price.output / 1e6;
  c.total_usd = c.input_usd + c.output_usd;
  std::uint64_t used = input_tokens + output_tokens;
  if (m.context_window > 0) {
    c.window_share = static_cast<double>(used) / static_cast<double>(m.context_window);
    c.fits = used <= m.context_window;
  }
  c.output_over_limit = m.max_output > 0 && output_tokens > m.max_output;
  return c;
}

}  // namespace tok::cost
