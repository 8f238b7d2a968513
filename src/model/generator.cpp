#include "model/generator.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "model/attention_mass.hpp"
#include "model/kv_sequence.hpp"
#include "model/text_stream.hpp"

namespace tok::model {
namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

}  // namespace

std::string_view stop_reason_name(StopReason r) {
  switch (r) {
    case StopReason::kMaxTokens: return "max_tokens";
    case StopReason::kStopString: return "stop_string";
    case StopReason::kEndOfText: return "end_of_text";
    case StopReason::kContextFull: return "context_full";
  }
  return "?";
}

double GenerateStats::prefill_tokens_per_s() const {
  return prefill_ms > 0 ? static_cast<double>(prompt_tokens) * 1000.0 / prefill_ms : 0;
}
double GenerateStats::decode_tokens_per_s() const {
  return decode_ms > 0 && generated_tokens > 1
             ? static_cast<double>(generated_tokens - 1) * 1000.0 / decode_ms
             : 0;
}

Result<GenerateStats> generate(const Model& model, ThreadPool& pool,
                               std::span<const bpe::TokenId> prompt, const GenerateOptions& o,
                               const GenerateCallbacks& cb) {
  int ctx = o.ctx > 0 ? o.ctx : static_cast<int>(model.config().ctx);
  TOK_ASSIGN(kv::PagedKvCache cache, kv::PagedKvCache::create(kv_config_for(model, ctx, o.kv)));
  return generate(model, pool, prompt, o, cb, cache);
}

Result<GenerateStats> generate(const Model& model, ThreadPool& pool,
                               std::span<const bpe::TokenId> prompt, const GenerateOptions& o,
                               const GenerateCallbacks& cb, kv::PagedKvCache& cache) {
  const ModelConfig& c = model.config();
  int ctx = o.ctx > 0 ? o.ctx : static_cast<int>(c.ctx);
  const kv::EvictionPolicy& policy = cache.config().policy;
  bool bounded = policy.capacity() > 0;  // evicts instead of filling the context
  if (prompt.empty()) return make_error("the prompt is empty (and the model adds no BOS token)");
  if (!bounded && prompt.size() > static_cast<std::size_t>(ctx)) {
    return make_error("the prompt has {} tokens, more than the context of {} (see --ctx)",
                      prompt.size(), ctx);
  }
  TOK_TRY(KvSequence::fits(policy, ctx));
  Forward fwd(model, pool);
  AttentionMass mass(o.observer);  // H2O's scores, then the caller's observer
  fwd.set_attention_observer(policy.kind == kv::EvictionPolicy::Kind::kH2O ? &mass : o.observer);
  KvSequence seq(fwd, cache, ctx);
  Sampler sampler(o.sampling);
  TextStream stream(o.stops);
  const bpe::Tokenizer& tk = model.tokenizer();
  GenerateStats st;
  st.prompt_tokens = prompt.size();
  st.model_bytes = model.file_bytes();
  std::vector<bpe::TokenId> history(prompt.begin(), prompt.end());
  auto t0 = Clock::now();
  TOK_ASSIGN(std::span<const float> logits, seq.eval(prompt));
  st.prefill_ms = ms_since(t0);
  Clock::time_point t_decode;
  while (st.generated_tokens < static_cast<std::size_t>(o.max_tokens)) {
    std::span<const float> vocab_logits = logits.first(std::min(logits.size(), tk.vocab_size()));
    bpe::TokenId id = sampler.sample(vocab_logits, history);
    ++st.generated_tokens;
    if (st.generated_tokens == 1) {
      st.ttft_ms = ms_since(t0);
      t_decode = Clock::now();
    }
    history.push_back(id);
    if (cb.token) {
      TokenInfo info{id, 0.0f, {}};
      if (o.logprobs > 0) {
        info.logprob = logprob_of(vocab_logits, id);
        info.top = top_logprobs(vocab_logits, o.logprobs);
      }
      cb.token(info);
    }
    if (o.stop_at_eos && ((tk.eos && id == *tk.eos) ||
                          std::find(o.end_ids.begin(), o.end_ids.end(), id) != o.end_ids.end())) {
      st.stop = StopReason::kEndOfText;
      break;
    }
    std::string piece = stream.push(tk.is_special(id) ? std::string_view() : tk.token_bytes(id));
    if (cb.text && !piece.empty()) cb.text(piece);
    if (stream.stopped()) {
      st.stop = StopReason::kStopString;
      break;
    }
    if (st.generated_tokens == static_cast<std::size_t>(o.max_tokens)) break;
    if (!bounded && seq.cache().size() >= ctx) {
      st.stop = StopReason::kContextFull;
      break;
    }
    bpe::TokenId one[1] = {id};
    TOK_ASSIGN(logits, seq.eval(one));
  }
  if (st.generated_tokens > 0) st.decode_ms = ms_since(t_decode);
  std::string rest = stream.finish();
  if (cb.text && !rest.empty()) cb.text(rest);
  st.kv = cache.stats();  // before seq frees its blocks
  st.kv_bytes = st.kv.bytes_reserved;
  return st;
}

}  // namespace tok::model
