#include "model/decoding.hpp"

#include <algorithm>

namespace tok::model {

std::string_view finish_name(Finish f) {
  switch (f) {
    case Finish::kMaxTokens: return "max_tokens";
    case Finish::kStopString: return "stop_string";
    case Finish::kEndOfText: return "end_of_text";
    case Finish::kContextFull: return "context_full";
    case Finish::kKvBudget: return "kv_budget";
  }
  return "?";
}

Decoding::Decoding(const bpe::Tokenizer& tk, std::span<const bpe::TokenId> prompt, int max_tokens,
                   int ctx, std::vector<std::string> stops, const SamplerParams& sampling)
    : tk_(tk),
      max_tokens_(max_tokens),
      ctx_(ctx),
      sampler_(sampling),
      stream_(std::move(stops)),
      history_(prompt.begin(), prompt.end()),
      prompt_tokens_(prompt.size()) {
  if (max_tokens_ <= 0) finish(Finish::kMaxTokens);
}

void Decoding::finish(Finish why) {
  if (done_) return;
  done_ = true;
  reason_ = why;
  text_ += stream_.finish();
}

// The same checks, in the same order, as model::generate's loop.
bool Decoding::accept(std::span<const float> logits, int cache_size) {
  std::span<const float> vocab = logits.first(std::min(logits.size(), tk_.vocab_size()));
  bpe::TokenId id = sampler_.sample(vocab, history_);
  history_.push_back(id);
  ids_.push_back(id);
  if (tk_.eos && id == *tk_.eos) {
    finish(Finish::kEndOfText);
    return false;
  }
  text_ += stream_.push(tk_.is_special(id) ? std::string_view() : tk_.token_bytes(id));
  if (stream_.stopped()) {
    finish(Finish::kStopString);
  } else if (ids_.size() == static_cast<std::size_t>(max_tokens_)) {
    finish(Finish::kMaxTokens);
  } else if (cache_size >= ctx_) {
    finish(Finish::kContextFull);
  }
  return !done_;
}

}  // namespace tok::model
