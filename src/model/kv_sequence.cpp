#include "model/kv_sequence.hpp"

#include <algorithm>

namespace tok::model {

kv::KvConfig kv_config_for(const Model& model, int ctx, kv::KvConfig base) {
  const ModelConfig& c = model.config();
  base.layers = static_cast<int>(c.n_layers);
  base.kv_heads = static_cast<int>(c.n_kv_heads);
  base.head_dim = static_cast<int>(c.head_dim);
  base.context = ctx;
  return base;
}

Status KvSequence::fits(const kv::EvictionPolicy& policy, int ctx) {
  int cap = policy.capacity();
  if (cap > 0 && cap >= ctx) {
    return make_error(
        "KV policy {} keeps {} tokens: the context ({}) must hold them plus the token being "
        "evaluated (see --ctx)",
        policy.to_string(), cap, ctx);
  }
  return {};
}

KvSequence::KvSequence(Forward& fwd, kv::PagedKvCache& cache, int ctx)
    : fwd_(&fwd), cache_(cache, fwd.kv_shape(ctx)), capacity_(cache.config().policy.capacity()) {
  TOK_ASSERT(fits(cache.config().policy, ctx).ok());
  // An evicting policy moves kept keys to new slots at every step: stored
  // unrotated, they move as they are (bytes), and attention rotates each to
  // its slot as it reads it. Re-rotating stored keys instead requantized
  // them at every move, and the rounding compounded (q4_0 lost half its
  // perplexity under sinks:4,window:60).
  cache_.set_keys_before_rope(capacity_ > 0);
}

Result<std::size_t> KvSequence::make_room(std::size_t remaining) {
  int room = capacity_ - cache_.size();
  if (room > 0) return std::min(remaining, static_cast<std::size_t>(room));
  // At (or one past) capacity: the policy drops to capacity, the next token goes on top.
  TOK_TRY(cache_.evict(kv::KeyShift{}));  // keys are unrotated: moved as they are
  return std::size_t{1};
}

Result<std::span<const float>> KvSequence::eval(std::span<const bpe::TokenId> tokens,
                                                bool all_logits) {
  if (capacity_ == 0) return fwd_->eval(tokens, cache_, all_logits);
  std::span<const float> last;
  if (all_logits) logits_.clear();
  for (std::size_t done = 0; done < tokens.size();) {
    TOK_ASSIGN(std::size_t n, make_room(tokens.size() - done));
    TOK_ASSIGN(last, fwd_->eval(tokens.subspan(done, n), cache_, all_logits));
    if (all_logits) logits_.insert(logits_.end(), last.begin(), last.end());
    done += n;
  }
  if (all_logits) return std::span<const float>(logits_);
  return last;
}

}  // namespace tok::model
