#include "model/score.hpp"

#include <chrono>

#include "model/attention_mass.hpp"
#include "model/kv_sequence.hpp"
#include "model/sampler.hpp"

namespace tok::model {
namespace {

using Clock = std::chrono::steady_clock;

// Each window from an empty cache (the default: what `tok score` always did).
Status score_windows(std::span<const bpe::TokenId> ids, int ctx, std::optional<bpe::TokenId> bos,
                     std::size_t nv, KvSequence& seq, ScoreStats& st) {
  std::size_t text_per_window = static_cast<std::size_t>(bos ? ctx - 1 : ctx);
  if (text_per_window == 0) return make_error("the context of {} token is too short to score", ctx);
  std::vector<bpe::TokenId> window;
  for (std::size_t i = 0; i < ids.size(); i += text_per_window) {
    std::size_t n = std::min(text_per_window, ids.size() - i);
    window.clear();
    if (bos) window.push_back(*bos);
    window.insert(window.end(), ids.begin() + static_cast<std::ptrdiff_t>(i),
                  ids.begin() + static_cast<std::ptrdiff_t>(i + n));
    if (window.size() < 2) break;
    seq.cache().clear();
    TOK_ASSIGN(std::span<const float> logits, seq.eval(window, true));
    for (std::size_t t = 0; t + 1 < window.size(); ++t) {
      st.nll_sum -= logprob_of(logits.subspan(t * nv, nv), window[t + 1]);
      ++st.tokens;
    }
    ++st.windows;
  }
  return {};
}

// The whole text through one cache that evicts as it goes, in pieces of
// kPiece tokens (KvSequence splits them further to keep the policy exact).
Status score_stream(std::span<const bpe::TokenId> ids, std::optional<bpe::TokenId> bos,
                    std::size_t nv, KvSequence& seq, ScoreStats& st) {
  constexpr std::size_t kPiece = 64;
  std::vector<bpe::TokenId> text;
  if (bos) text.push_back(*bos);
  text.insert(text.end(), ids.begin(), ids.end());
  std::vector<float> prev;  // (n_vocab) logits of the token before the current piece
  for (std::size_t i = 0; i < text.size(); i += kPiece) {
    std::span<const bpe::TokenId> piece(text.data() + i, std::min(kPiece, text.size() - i));
    TOK_ASSIGN(std::span<const float> logits, seq.eval(piece, true));
    for (std::size_t t = 0; t < piece.size(); ++t) {
      if (t == 0 && prev.empty()) continue;  // the first token is context only
      std::span<const float> row =
          t == 0 ? std::span<const float>(prev) : logits.subspan((t - 1) * nv, nv);
      st.nll_sum -= logprob_of(row, piece[t]);
      ++st.tokens;
    }
    std::span<const float> last = logits.subspan((piece.size() - 1) * nv, nv);
    prev.assign(last.begin(), last.end());
  }
  st.windows = 1;
  st.streamed = true;
  return {};
}

}  // namespace

Result<ScoreStats> score(const Model& model, ThreadPool& pool, std::span<const bpe::TokenId> ids,
                         const ScoreOptions& o) {
  int ctx = o.ctx > 0 ? o.ctx : static_cast<int>(model.config().ctx);
  TOK_ASSIGN(kv::PagedKvCache cache, kv::PagedKvCache::create(kv_config_for(model, ctx, o.kv)));
  return score(model, pool, ids, o, cache);
}

Result<ScoreStats> score(const Model& model, ThreadPool& pool, std::span<const bpe::TokenId> ids,
                         const ScoreOptions& o, kv::PagedKvCache& cache) {
  int ctx = o.ctx > 0 ? o.ctx : static_cast<int>(model.config().ctx);
  const kv::EvictionPolicy& policy = cache.config().policy;
  TOK_TRY(KvSequence::fits(policy, ctx));
  Forward fwd(model, pool);
  AttentionMass mass;
  if (policy.kind == kv::EvictionPolicy::Kind::kH2O) fwd.set_attention_observer(&mass);
  KvSequence seq(fwd, cache, ctx);
  std::size_t nv = static_cast<std::size_t>(model.config().n_vocab);
  ScoreStats st;
  auto t0 = Clock::now();
  if (policy.capacity() > 0) {
    TOK_TRY(score_stream(ids, o.bos, nv, seq, st));
  } else {
    TOK_TRY(score_windows(ids, ctx, o.bos, nv, seq, st));
  }
  st.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  st.kv = cache.stats();  // before seq frees its blocks
  return st;
}

}  // namespace tok::model
