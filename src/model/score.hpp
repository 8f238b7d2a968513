// score(): how well the model predicts a token sequence (mean negative
// log-likelihood per token; perplexity = exp of it), on a paged KV cache.
// With the policy `full` the text is cut into windows of the context length,
// each scored from an empty cache (`tok score`'s default). With a bounded
// policy (window, sinks, h2o) the whole text streams through ONE cache that
// evicts as it goes, each token scored given every token the policy kept:
// the StreamingLLM experiment (docs/kv.md; figures in BENCHMARKS.md).
#pragma once

#include <optional>
#include <span>

#include "core/result.hpp"
#include "kv/paged_cache.hpp"
#include "model/forward.hpp"

namespace tok::model {

struct ScoreOptions {
  int ctx = 0;                      // 0: the model's context length
  std::optional<bpe::TokenId> bos;  // starts every window (or the stream)
  // Policy full: windows of ctx tokens, each from an empty cache. Bounded:
  // the whole text as one stream through one cache, evicting as it goes.
  kv::KvConfig kv;
};

struct ScoreStats {
  std::size_t tokens = 0;   // tokens whose probability was scored
  std::size_t windows = 0;  // 1 when streamed
  bool streamed = false;    // one cache under a bounded policy
  double nll_sum = 0;       // natural log
  double seconds = 0;
  kv::KvStats kv;  // the cache at the end (the last window), before it is freed
  double mean_nll() const { return tokens ? nll_sum / static_cast<double>(tokens) : 0; }
};

// Scores ids. Windows: consecutive windows of ctx tokens, each from an
// empty cache; with bos, every window starts with it and scores all its text
// tokens; without, the first token of each window is context only. Stream:
// bos (if any) then every token, each scored given all kept tokens before it.
Result<ScoreStats> score(const Model& model, ThreadPool& pool, std::span<const bpe::TokenId> ids,
                         const ScoreOptions& options);
// The same on cache (shaped for model; options.kv is not used).
Result<ScoreStats> score(const Model& model, ThreadPool& pool, std::span<const bpe::TokenId> ids,
                         const ScoreOptions& options, kv::PagedKvCache& cache);

}  // namespace tok::model
