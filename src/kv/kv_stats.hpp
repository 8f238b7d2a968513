// KvStats: what a PagedKvCache holds and what paging and sharing saved,
// printed by `tok generate --json` (documented key by key in docs/kv.md).
#pragma once

#include <cstdint>
#include <string>

#include "kv/eviction_policy.hpp"
#include "kv/kv_type.hpp"

namespace tok::kv {

struct KvStats {
  int block_tokens = 0;               // kv_block_tokens: slots per block
  std::uint64_t blocks_in_use = 0;    // kv_blocks_in_use: blocks referenced now
  std::uint64_t blocks_peak = 0;      // kv_blocks_peak: most blocks ever in use at once
  std::uint64_t bytes_per_token = 0;  // kv_bytes_per_token: K + V, all layers, one slot
  std::uint64_t bytes_reserved = 0;   // kv_bytes_reserved: blocks in use * block bytes
  std::uint64_t bytes_used = 0;  // kv_bytes_used: written slots * bytes per token (shared once)
  double waste_pct = 0.0;        // kv_waste_pct: 100 * (reserved - used) / reserved
  std::uint64_t bytes_contiguous =
      0;  // kv_bytes_contiguous: peak sequences * context * bytes per token
  std::uint64_t shared_blocks = 0;   // kv_shared_blocks: blocks with more than one reference now
  std::uint64_t bytes_saved = 0;     // kv_bytes_saved: (references - 1) * block bytes, summed
  std::uint64_t budget_bytes = 0;    // kv_budget_bytes: pool cap (0: none)
  KvType type = KvType::kF32;        // kv_type: storage of the rows
  EvictionPolicy policy;             // kv_policy: EvictionPolicy::to_string()
  std::uint64_t evicted_tokens = 0;  // kv_evicted_tokens: slots evicted since creation

  // One JSON object with the kv_* keys above, in that order.
  std::string to_json() const;
};

}  // namespace tok::kv
