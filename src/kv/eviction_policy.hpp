// Which positions a sequence keeps once it outgrows its budget (--kv-policy):
//
//   full              keep everything (no eviction)
//   window:W          the last W tokens (sliding window)
//   sinks:S,window:W  the first S tokens + the last W (StreamingLLM,
//                     Xiao et al. 2023, arXiv:2309.17453: "attention sinks")
//   h2o:H,window:W    the H tokens with the largest accumulated attention
//                     mass outside the window + the last W (H2O, Zhang et
//                     al. 2023, arXiv:2306.14048: "heavy hitters")
//
// The policy decides from the slots alone (original positions and the
// attention each slot accumulated); PagedKvCache applies the decision. The
// decision is deterministic: H2O breaks ties in favour of the earlier position.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace tok::kv {

struct EvictionPolicy {
  enum class Kind { kFull, kWindow, kSinks, kH2O };
  Kind kind = Kind::kFull;
  int sinks = 0;   // kSinks: first tokens always kept
  int heavy = 0;   // kH2O: heavy hitters kept
  int window = 0;  // kWindow, kSinks, kH2O: most recent tokens kept

  // Slots kept at most; 0 for full (unbounded).
  int capacity() const { return kind == Kind::kFull ? 0 : sinks + heavy + window; }
  std::string to_string() const;

  // Slot indices (ascending) to keep out of n slots, slot i holding original
  // position positions[i] (ascending) with accumulated attention mass
  // attention[i]. Keeps all n slots when n <= capacity().
  std::vector<int> select(std::span<const int> positions, std::span<const float> attention) const;
};

Result<EvictionPolicy> parse_eviction_policy(std::string_view s);

}  // namespace tok::kv
