// Generator: the generation loop. Prefills the prompt, then samples one
// token at a time, streaming text through TextStream (whole UTF-8
// characters, stop strings withheld) and timing prefill and decode.
// score() computes the mean negative log-likelihood of a token sequence in
// windows of the context length.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "model/forward.hpp"
#include "model/sampler.hpp"

namespace tok::model {

struct GenerateOptions {
  int max_tokens = 128;
  int ctx = 0;  // 0: the model's context length
  std::vector<std::string> stops;
  int logprobs = 0;  // report the top-K log-probabilities of each step
  bool stop_at_eos = true;
  SamplerParams sampling;
  // Sees every layer's attention probabilities (prompt and generated rows);
  // nullptr: none. Not owned.
  AttentionObserver* observer = nullptr;
};

enum class StopReason { kMaxTokens, kStopString, kEndOfText, kContextFull };
std::string_view stop_reason_name(StopReason r);

struct TokenInfo {
  bpe::TokenId id;
  float logprob = 0;                                  // of the chosen token (with --logprobs)
  std::vector<std::pair<bpe::TokenId, float>> top;    // (logprobs) most likely first
};

struct GenerateStats {
  std::size_t prompt_tokens = 0;
  std::size_t generated_tokens = 0;
  double ttft_ms = 0;      // start of prefill to the first generated token
  double prefill_ms = 0;
  double decode_ms = 0;    // forward passes after the first token
  std::uint64_t model_bytes = 0;
  std::uint64_t kv_bytes = 0;
  StopReason stop = StopReason::kMaxTokens;
  double prefill_tokens_per_s() const;
  double decode_tokens_per_s() const;
};

struct GenerateCallbacks {
  std::function<void(std::string_view)> text;       // text safe to write now
  std::function<void(const TokenInfo&)> token;       // every generated token
};

// Runs generation for prompt ids (BOS already added by the caller).
Result<GenerateStats> generate(const Model& model, ThreadPool& pool, std::span<const bpe::TokenId> prompt,
                               const GenerateOptions& options, const GenerateCallbacks& callbacks);

struct ScoreStats {
  std::size_t tokens = 0;   // tokens whose probability was scored
  std::size_t windows = 0;
  double nll_sum = 0;       // natural log
  double seconds = 0;
  double mean_nll() const { return tokens ? nll_sum / static_cast<double>(tokens) : 0; }
};

// Scores ids in consecutive windows of ctx tokens, each from an empty cache.
// With bos, every window starts with it and scores all its text tokens;
// without, the first token of each window is context only.
Result<ScoreStats> score(const Model& model, ThreadPool& pool, std::span<const bpe::TokenId> ids,
                         int ctx, std::optional<bpe::TokenId> bos);

}  // namespace tok::model
