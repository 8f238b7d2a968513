// Continuous batching (Orca, Yu et al. 2022; vLLM, Kwon et al. 2023): many
// requests share one paged KV cache under a byte budget. Before each step
// the scheduler admits waiting requests while the pool has room for their
// prompts plus a growth reserve, prefills each admitted prompt, then steps
// every running sequence together (one token each, Forward::eval_step: the
// weights are read once per step for all of them). A finished sequence
// frees its blocks at once and the next request takes its place. When the
// blocks for the next step run out, the newest sequence is preempted: its
// blocks are freed and it waits at the head of the queue to be recomputed
// (prompt and generated ids re-evaluated, vLLM's recompute preemption), so
// no request fails for lack of memory that an earlier one holds.
//
// With share_prefix, a request whose prompt begins with whole blocks of
// tokens a running sequence has already evaluated forks those blocks
// (PagedKvCache::fork_prefix) and prefills only the rest.
//
// Every sequence's arithmetic is independent of the others in its batch
// (each matmul output element is one dot product, attention reads only its
// own cache), so a request gives exactly the tokens `tok generate` gives
// for it alone with the same seed, whatever else runs beside it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "kv/paged_cache.hpp"
#include "model/decoding.hpp"
#include "model/forward.hpp"

namespace tok::model {

struct BatchRequest {
  std::vector<bpe::TokenId> prompt;  // BOS included
  int max_tokens = 128;
  std::vector<std::string> stops;
  SamplerParams sampling;
};

struct BatchResult {
  std::string text;
  std::vector<bpe::TokenId> ids;
  Finish finish = Finish::kMaxTokens;
  std::size_t prompt_tokens = 0;
};

struct BatchOptions {
  int ctx = 0;                         // positions per sequence (the context length)
  int max_batch = Forward::kMaxBatch;  // sequences stepped together
  // Start a request on the whole KV blocks of a running sequence that
  // evaluated the same leading tokens (a common prompt prefix) instead of
  // evaluating them again.
  bool share_prefix = true;
};

struct BatchStats {
  std::size_t sequences = 0;
  std::size_t prompt_tokens = 0;  // of all requests (shared or recomputed ones counted once)
  std::size_t generated_tokens = 0;
  std::size_t recomputed_tokens = 0;  // re-evaluated after preemption
  std::size_t steps = 0;              // eval_step calls
  std::size_t peak_in_flight = 0;     // most sequences holding KV blocks at once
  std::size_t preemptions = 0;
  std::size_t prefix_shared_tokens = 0;  // prompt tokens taken from another sequence's blocks
  std::uint64_t prefix_shared_blocks_peak = 0;  // most blocks shared at once
  double seconds = 0;
  kv::KvStats kv;  // at the end of the run (every sequence freed), with the pool's peak
  double tokens_per_s() const {
    return seconds > 0 ? static_cast<double>(generated_tokens) / seconds : 0;
  }
};

// Called once per request as soon as it finishes (in finishing order).
using BatchDone = std::function<void(std::size_t index, BatchResult&& result)>;

// An error when r cannot run at all: an empty prompt, a prompt longer than
// ctx, or one whose blocks exceed the whole KV budget of cache.
Status check_batch_request(const BatchRequest& r, const kv::PagedKvCache& cache, int ctx);

// Runs every request to completion on cache (which must be empty and whose
// config().context >= options.ctx). A prompt longer than the context or
// larger than the whole budget is an error before anything runs.
Result<BatchStats> run_batch(const Model& model, ThreadPool& pool, kv::PagedKvCache& cache,
                             const std::vector<BatchRequest>& requests, const BatchOptions& options,
                             const BatchDone& done);

}  // namespace tok::model
