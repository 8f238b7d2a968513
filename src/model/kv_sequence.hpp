// KvSequence: one sequence of a paged KV cache fed through the forward pass
// under the cache's eviction policy (`--kv-policy`). With `full` it is a
// plain eval: the context length bounds the sequence. With a bounded policy
// (capacity C = what the policy keeps) the text may be any length: tokens
// are evaluated in batches that fill the cache up to C, then one at a time,
// evicting before each so that every token attends to at most C kept tokens
// plus itself. Eviction compacts the kept tokens to cache positions 0..k-1,
// and attention rotates each key to its position as it reads it (a bounded
// sequence stores keys before RoPE), so RoPE positions stay below C + 1 <=
// the context length however long the text is (StreamingLLM's "positions
// within the cache", see docs/kv.md, "Eviction policies").
#pragma once

#include <span>
#include <vector>

#include "kv/paged_cache.hpp"
#include "model/forward.hpp"
#include "model/paged_kv_adapter.hpp"

namespace tok::model {

// The KV configuration for model at context ctx: base's type, block size,
// policy and budget with the model's shape.
kv::KvConfig kv_config_for(const Model& model, int ctx, kv::KvConfig base);

class KvSequence {
 public:
  // An error unless a bounded policy leaves room for one token in ctx
  // positions (capacity < ctx).
  static Status fits(const kv::EvictionPolicy& policy, int ctx);

  // A new sequence of cache, evaluated by fwd, holding at most ctx
  // positions. fits(cache.config().policy, ctx) must hold.
  KvSequence(Forward& fwd, kv::PagedKvCache& cache, int ctx);

  // Appends tokens and evaluates them; logits of the last token, or of every
  // token (tokens.size(), n_vocab) with all_logits. The view is valid until
  // the next call. Full policy: an error when the context would overflow.
  Result<std::span<const float>> eval(std::span<const bpe::TokenId> tokens,
                                      bool all_logits = false);

  PagedKvAdapter& cache() { return cache_; }
  const PagedKvAdapter& cache() const { return cache_; }
  // The policy's capacity; 0 for full (bounded by the context instead).
  int capacity() const { return capacity_; }

 private:
  // Evicts if the next token would exceed the capacity; then how many of
  // `remaining` tokens fit in one batch.
  Result<std::size_t> make_room(std::size_t remaining);

  Forward* fwd_;
  PagedKvAdapter cache_;
  int capacity_;
  std::vector<float> logits_;  // (tokens, n_vocab) gathered over batches for all_logits
};

}  // namespace tok::model
