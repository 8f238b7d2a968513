// Generator: the generation loop. Prefills the prompt, then samples one
// token at a time, streaming text through TextStream (whole UTF-8
// characters, stop strings withheld) and timing prefill and decode.
// Runs on a paged KV cache (src/kv) through KvSequence: its storage type,
// block size, policy and budget come from GenerateOptions::kv; a bounded
// policy lets generation go on past the context. Scoring is in score.hpp.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "kv/paged_cache.hpp"
#include "model/forward.hpp"
#include "model/sampler.hpp"

namespace tok::model {

struct GenerateOptions {
  int max_tokens = 128;
  int ctx = 0;  // 0: the model's context length
  std::vector<std::string> stops;
  int logprobs = 0;  // report the top-K log-probabilities of each step
  bool stop_at_eos = true;
  // With stop_at_eos: further end-of-turn ids that end generation as EOS
  // does (end_of_generation.hpp), as llama.cpp stops at any EOG token.
  std::vector<bpe::TokenId> end_ids;
  SamplerParams sampling;
  // Sees every layer's attention probabilities (prompt and generated rows);
  // nullptr: none. Not owned.
  AttentionObserver* observer = nullptr;
  // KV storage type, block size, eviction policy, budget (--kv-*). The
  // shape (layers, heads, head_dim, context) is set from the model and ctx.
  // A bounded policy lets generation run past the context.
  kv::KvConfig kv;
};

enum class StopReason { kMaxTokens, kStopString, kEndOfText, kContextFull };
std::string_view stop_reason_name(StopReason r);

struct TokenInfo {
  bpe::TokenId id;
  float logprob = 0;                                // of the chosen token (with --logprobs)
  std::vector<std::pair<bpe::TokenId, float>> top;  // (logprobs) most likely first
};

struct GenerateStats {
  std::size_t prompt_tokens = 0;
  std::size_t generated_tokens = 0;
  double ttft_ms = 0;  // start of prefill to the first generated token
  double prefill_ms = 0;
  double decode_ms = 0;  // forward passes after the first token
  std::uint64_t model_bytes = 0;
  std::uint64_t kv_bytes = 0;  // KV bytes reserved at the end (= kv.bytes_reserved)
  kv::KvStats kv;              // the cache's statistics at the end, before it is freed
  StopReason stop = StopReason::kMaxTokens;
  double prefill_tokens_per_s() const;
  double decode_tokens_per_s() const;
};

struct GenerateCallbacks {
  std::function<void(std::string_view)> text;   // text safe to write now
  std::function<void(const TokenInfo&)> token;  // every generated token
};

// Runs generation for prompt ids (BOS already added by the caller) on a new
// cache made from options.kv.
Result<GenerateStats> generate(const Model& model, ThreadPool& pool,
                               std::span<const bpe::TokenId> prompt, const GenerateOptions& options,
                               const GenerateCallbacks& callbacks);
// The same on a sequence of cache (shaped for model; options.kv is not
// used); every block it took is released on return.
Result<GenerateStats> generate(const Model& model, ThreadPool& pool,
                               std::span<const bpe::TokenId> prompt, const GenerateOptions& options,
                               const GenerateCallbacks& callbacks, kv::PagedKvCache& cache);

}  // namespace tok::model
