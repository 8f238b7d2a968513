// Several continuations of one prompt on a paged KV cache, sharing the
// prompt's blocks by reference count (PagedAttention's parallel sampling):
//
//   samples      the prompt is evaluated once and forked n - 1 times; only
//                the partly filled last prompt block is copied, by each
//                sample on its first write (copy-on-write). Sample i draws
//                with seed + i, so it is exactly what `tok generate --seed
//                seed+i` prints, and what the same run without sharing
//                (share = false: one prefill per sample) prints.
//   beam search  keeps the `beams` most likely continuations by summed
//                log-probability; a beam chosen by several successors is
//                forked, a beam chosen by none is freed.
//
// All live sequences step together through Forward::eval_step.
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "kv/paged_cache.hpp"
#include "model/decoding.hpp"
#include "model/forward.hpp"

namespace tok::model {

struct SampleResult {
  std::string text;
  std::vector<bpe::TokenId> ids;
  Finish finish = Finish::kMaxTokens;
  double score = 0;  // beams: sum of log-probabilities of ids
};

struct MultiStats {
  std::size_t prompt_tokens = 0;
  std::size_t prefill_tokens = 0;  // prompt tokens evaluated (n * prompt without sharing)
  std::size_t generated_tokens = 0;
  std::size_t steps = 0;  // eval_step calls
  double seconds = 0;
  // At the end (every sequence freed): kv_blocks_peak, kv_bytes_contiguous;
  // shared_blocks and bytes_saved hold the largest values seen during the run.
  kv::KvStats kv;
  double tokens_per_s() const {
    return seconds > 0 ? static_cast<double>(generated_tokens) / seconds : 0;
  }
};

struct MultiRun {
  std::vector<SampleResult> results;  // samples: in sample order; beams: best first
  MultiStats stats;
};

struct SamplesOptions {
  int samples = 1;  // at most Forward::kMaxBatch
  bool share = true;
  int ctx = 0;
  int max_tokens = 128;
  std::vector<std::string> stops;
  SamplerParams sampling;  // sample i uses seed sampling.seed + i
};

Result<MultiRun> generate_samples(const Model& model, ThreadPool& pool, kv::PagedKvCache& cache,
                                  std::span<const bpe::TokenId> prompt, const SamplesOptions& o);

// Shared by samples.cpp and beam_search.cpp: keeps the largest sharing seen
// in st.kv; at the end, stores the cache's final stats (with those maxima)
// and the elapsed time.
void note_sharing(const kv::PagedKvCache& cache, MultiStats& st);
void finish_stats(const kv::PagedKvCache& cache, std::chrono::steady_clock::time_point t0,
                  MultiStats& st);

struct BeamOptions {
  int beams = 2;  // at most Forward::kMaxBatch
  int ctx = 0;
  int max_tokens = 128;  // length limit of every beam
};

// Beam search (no length normalisation): ends when max_tokens are reached,
// when no live beam can beat the best finished one (scores only fall), or
// when every beam has ended with the end-of-text token.
Result<MultiRun> beam_search(const Model& model, ThreadPool& pool, kv::PagedKvCache& cache,
                             std::span<const bpe::TokenId> prompt, const BeamOptions& o);

}  // namespace tok::model
