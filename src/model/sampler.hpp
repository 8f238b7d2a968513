// Sampler: picks the next token from logits. Order as in llama.cpp's default
// chain: repetition penalty -> top-k -> temperature + softmax -> top-p ->
// min-p -> draw. Draws come from a seeded SplitMix64 generator with our own
// uniform conversion, so a --seed gives the same tokens on every platform.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "bpe/merge_table.hpp"

namespace tok::model {

struct SamplerParams {
  bool greedy = false;  // argmax (also when temperature <= 0)
  float temperature = 0.8f;
  int top_k = 40;               // 0: all tokens
  float top_p = 0.95f;          // 1: off
  float min_p = 0.05f;          // 0: off; relative to the most likely token
  float repeat_penalty = 1.0f;  // 1: off; divides positive logits of recent tokens
  int repeat_last_n = 64;       // how many recent tokens the penalty looks at
  std::uint64_t seed = 0;
};

class Sampler {
 public:
  explicit Sampler(const SamplerParams& params);
  // history: the tokens so far (prompt and generated), for the penalty.
  bpe::TokenId sample(std::span<const float> logits, std::span<const bpe::TokenId> history);
  // Uniform double in [0, 1) (53 bits).
  double uniform();

 private:
  SamplerParams p_;
  std::uint64_t state_;
  std::vector<std::pair<float, bpe::TokenId>> cand_;  // scratch: (logit or prob, id)
};

// The k most likely tokens under softmax(logits) with their log-probabilities,
// most likely first.
std::vector<std::pair<bpe::TokenId, float>> top_logprobs(std::span<const float> logits, int k);
// log softmax(logits)[id]
float logprob_of(std::span<const float> logits, bpe::TokenId id);

}  // namespace tok::model
