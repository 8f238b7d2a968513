#include "model/samples.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>

#include "model/paged_kv_adapter.hpp"

namespace tok::model {

void note_sharing(const kv::PagedKvCache& cache, MultiStats& st) {
  kv::KvStats now = cache.stats();
  st.kv.shared_blocks = std::max(st.kv.shared_blocks, now.shared_blocks);
  st.kv.bytes_saved = std::max(st.kv.bytes_saved, now.bytes_saved);
}

void finish_stats(const kv::PagedKvCache& cache, std::chrono::steady_clock::time_point t0,
                  MultiStats& st) {
  kv::KvStats end = cache.stats();
  end.shared_blocks = st.kv.shared_blocks;
  end.bytes_saved = st.kv.bytes_saved;
  st.kv = end;
  st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

Result<MultiRun> generate_samples(const Model& model, ThreadPool& pool, kv::PagedKvCache& cache,
                                  std::span<const bpe::TokenId> prompt, const SamplesOptions& o) {
  auto t0 = std::chrono::steady_clock::now();
  std::size_t n = static_cast<std::size_t>(o.samples);
  if (n < 1 || n > static_cast<std::size_t>(Forward::kMaxBatch)) {
    return make_error("--samples {}: expected 1 to {}", n, Forward::kMaxBatch);
  }
  Forward fwd(model, pool);
  MultiRun run;
  MultiStats& st = run.stats;
  st.prompt_tokens = prompt.size();
  std::vector<std::unique_ptr<Decoding>> dec;
  for (std::size_t i = 0; i < n; ++i) {
    SamplerParams p = o.sampling;
    p.seed += i;
    dec.push_back(
        std::make_unique<Decoding>(model.tokenizer(), prompt, o.max_tokens, o.ctx, o.stops, p));
  }
  std::vector<std::optional<PagedKvAdapter>> caches(n);
  std::vector<float> first;  // (n_vocab) logits after the shared prompt
  for (std::size_t i = 0; i < n; ++i) {
    if (o.share && i > 0) {
      caches[i].emplace(caches[0]->fork());
    } else {
      caches[i].emplace(cache, fwd.kv_shape(o.ctx));
      TOK_ASSIGN(std::span<const float> logits, fwd.eval(prompt, *caches[i]));
      first.assign(logits.begin(), logits.end());
      st.prefill_tokens += prompt.size();
    }
  }
  note_sharing(cache, st);
  for (std::size_t i = 0; i < n; ++i) {
    if (!dec[i]->done() && !dec[i]->accept(first, caches[i]->size())) caches[i].reset();
  }
  std::vector<bpe::TokenId> tokens;
  std::vector<KvCache*> rows;
  std::vector<std::size_t> which;
  std::size_t nv = static_cast<std::size_t>(model.config().n_vocab);
  for (;;) {
    tokens.clear();
    rows.clear();
    which.clear();
    for (std::size_t i = 0; i < n; ++i) {
      if (dec[i]->done()) continue;
      tokens.push_back(dec[i]->pending());
      rows.push_back(&*caches[i]);
      which.push_back(i);
    }
    if (which.empty()) break;
    TOK_ASSIGN(std::span<const float> logits, fwd.eval_step(tokens, rows));
    ++st.steps;
    note_sharing(cache, st);
    for (std::size_t j = 0; j < which.size(); ++j) {
      std::size_t i = which[j];
      if (!dec[i]->accept(logits.subspan(j * nv, nv), caches[i]->size())) caches[i].reset();
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    st.generated_tokens += dec[i]->ids().size();
    run.results.push_back(SampleResult{dec[i]->text(), dec[i]->ids(), dec[i]->reason(), 0});
  }
  finish_stats(cache, t0, st);
  return run;
}

}  // namespace tok::model
