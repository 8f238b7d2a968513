// Decoding: the per-sequence half of the generation loop (sampling, stop
// strings, end of text, length and context limits), apart from the forward
// pass, so that many sequences stepped together by Forward::eval_step
// (samples, continuous batching) take exactly the decisions
// model::generate takes for one: same sampler, same history, same order of
// checks. A sequence whose decoding is identical and whose logits are
// identical produces identical text.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bpe/tokenizer.hpp"
#include "model/generator.hpp"
#include "model/sampler.hpp"
#include "model/text_stream.hpp"

namespace tok::model {

// Why a multi-sequence run ended a sequence: generate's reasons, plus a KV
// budget too small for the sequence even when it runs alone.
enum class Finish { kMaxTokens, kStopString, kEndOfText, kContextFull, kKvBudget };
std::string_view finish_name(Finish f);

class Decoding {
 public:
  // prompt: the prompt ids (BOS included); ctx: positions the cache holds.
  Decoding(const bpe::Tokenizer& tk, std::span<const bpe::TokenId> prompt, int max_tokens, int ctx,
           std::vector<std::string> stops, const SamplerParams& sampling);

  // Takes the logits (n_vocab) that followed the last evaluated token, with
  // the cache now holding cache_size positions; samples the next token.
  // Returns true while the sequence goes on: pending() must be evaluated next.
  bool accept(std::span<const float> logits, int cache_size);
  // A sequence that can take no more tokens (max_tokens 0, or the KV budget).
  void finish(Finish why);

  bool done() const { return done_; }
  Finish reason() const { return reason_; }
  bpe::TokenId pending() const { return history_.back(); }
  // Tokens a preempted sequence re-evaluates (prompt and generated ids, all
  // but pending()) to rebuild its cache: recompute, as in vLLM.
  std::span<const bpe::TokenId> recompute() const {
    return std::span<const bpe::TokenId>(history_).first(history_.size() - 1);
  }
  std::size_t prompt_tokens() const { return prompt_tokens_; }
  const std::vector<bpe::TokenId>& ids() const { return ids_; }
  // Text released so far (the stop string withheld); complete after done().
  const std::string& text() const { return text_; }

 private:
  const bpe::Tokenizer& tk_;
  int max_tokens_, ctx_;
  Sampler sampler_;
  TextStream stream_;
  std::vector<bpe::TokenId> history_;  // prompt + generated ids (the sampler's penalty window)
  std::vector<bpe::TokenId> ids_;      // generated ids
  std::size_t prompt_tokens_;
  std::string text_;
  bool done_ = false;
  Finish reason_ = Finish::kMaxTokens;
};

}  // namespace tok::model
