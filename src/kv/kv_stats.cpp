#include "kv/kv_stats.hpp"

#include <fmt/format.h>

namespace tok::kv {

std::string KvStats::to_json() const {
  return fmt::format(
      "{{\"kv_block_tokens\":{},\"kv_blocks_in_use\":{},\"kv_blocks_peak\":{},\"kv_bytes_per_"
      "token\":{},"
      "\"kv_bytes_reserved\":{},\"kv_bytes_used\":{},\"kv_waste_pct\":{:.2f},\"kv_bytes_"
      "contiguous\":{},"
      "\"kv_shared_blocks\":{},\"kv_bytes_saved\":{},\"kv_budget_bytes\":{},\"kv_type\":\"{}\","
      "\"kv_policy\":\"{}\",\"kv_evicted_tokens\":{}}}",
      block_tokens, blocks_in_use, blocks_peak, bytes_per_token, bytes_reserved, bytes_used,
      waste_pct, bytes_contiguous, shared_blocks, bytes_saved, budget_bytes, kv_type_name(type),
      policy.to_string(), evicted_tokens);
}

}  // namespace tok::kv
