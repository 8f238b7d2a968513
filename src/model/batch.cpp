#include "model/batch.hpp"

#include <algorithm>
#include <chrono>
#include <deque>
#include <memory>

#include "model/paged_kv_adapter.hpp"

namespace tok::model {
namespace {

std::size_t div_up(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

class Scheduler {
 public:
  Scheduler(const Model& model, ThreadPool& pool, kv::PagedKvCache& cache,
            const std::vector<BatchRequest>& requests, const BatchOptions& o, const BatchDone& done)
      : model_(model), fwd_(model, pool), cache_(cache), requests_(requests), o_(o), done_(done) {}

  Result<BatchStats> run() {
    auto t0 = std::chrono::steady_clock::now();
    const bpe::Tokenizer& tk = model_.tokenizer();
    for (std::size_t i = 0; i < requests_.size(); ++i) {
      const BatchRequest& r = requests_[i];
      decodings_.push_back(
          std::make_unique<Decoding>(tk, r.prompt, r.max_tokens, o_.ctx, r.stops, r.sampling));
      waiting_.push_back(i);
    }
    while (!waiting_.empty() || !running_.empty()) {
      TOK_TRY(admit());
      make_room();
      if (!running_.empty()) TOK_TRY(step());
    }
    st_.sequences = requests_.size();
    st_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    st_.kv = cache_.stats();
    return st_;
  }

 private:
  struct Running {
    std::size_t index;
    PagedKvAdapter cache;
  };

  // Blocks the running sequences take in the next step (new blocks at block
  // boundaries, copies of shared partly filled blocks).
  std::size_t next_step_blocks() const {
    std::size_t n = 0;
    for (const Running& r : running_) n += cache_.blocks_needed(r.cache.seq(), 1);
    return n;
  }

  // The running sequence holding the most whole blocks of tokens' leading
  // ids (never all of tokens: the last one is evaluated for its logits),
  // and how many slots of it to share.
  std::pair<const Running*, int> prefix_donor(std::span<const bpe::TokenId> tokens) const {
    std::size_t bt = static_cast<std::size_t>(cache_.config().block_tokens), best = 0;
    const Running* donor = nullptr;
    for (const Running& r : running_) {
      std::span<const bpe::TokenId> have = decodings_[r.index]->recompute();
      have = have.first(std::min(have.size(), static_cast<std::size_t>(r.cache.size())));
      std::size_t n = std::min(have.size(), tokens.size() - 1), k = 0;
      while (k < n && have[k] == tokens[k]) ++k;
      k = k / bt * bt;
      if (k > best) best = k, donor = &r;
    }
    return {donor, static_cast<int>(best)};
  }

  // Starts waiting requests while the pool holds their prompt (or, after a
  // preemption, prompt and generated ids), their next token, and the next
  // step of the sequences already running.
  Status admit() {
    std::size_t bt = static_cast<std::size_t>(cache_.config().block_tokens);
    while (!waiting_.empty() && running_.size() < static_cast<std::size_t>(o_.max_batch)) {
      std::size_t idx = waiting_.front();
      Decoding& d = *decodings_[idx];
      if (d.done()) {  // max_tokens 0
        waiting_.pop_front();
        emit(idx);
        continue;
      }
      bool fresh = d.ids().empty();
      std::span<const bpe::TokenId> tokens =
          fresh ? std::span(requests_[idx].prompt) : d.recompute();
      auto [donor, shared] =
          o_.share_prefix ? prefix_donor(tokens) : std::pair<const Running*, int>{};
      std::size_t need = div_up(tokens.size() + 1, bt) - static_cast<std::size_t>(shared) / bt +
                         next_step_blocks();
      if (need > cache_.pool().available()) {
        if (!running_.empty()) break;
        // Alone and still too big: only a recompute can get here (prompts
        // were checked against the budget), after growing past it.
        waiting_.pop_front();
        d.finish(Finish::kKvBudget);
        emit(idx);
        continue;
      }
      waiting_.pop_front();
      PagedKvAdapter a =
          donor ? PagedKvAdapter(cache_, cache_.fork_prefix(donor->cache.seq(), shared),
                                 fwd_.kv_shape(o_.ctx), shared)
                : PagedKvAdapter(cache_, fwd_.kv_shape(o_.ctx));
      if (donor) {
        st_.prefix_shared_tokens += static_cast<std::size_t>(shared);
        st_.prefix_shared_blocks_peak =
            std::max(st_.prefix_shared_blocks_peak, cache_.stats().shared_blocks);
      }
      TOK_ASSIGN(std::span<const float> logits,
                 fwd_.eval(tokens.subspan(static_cast<std::size_t>(shared)), a));
      if (fresh) {
        st_.prompt_tokens += tokens.size();
        if (!d.accept(logits, a.size())) {
          emit(idx);
          continue;  // a's destructor frees its blocks
        }
      } else {
        st_.recomputed_tokens += tokens.size() - static_cast<std::size_t>(shared);
      }
      running_.push_back(Running{idx, std::move(a)});
      st_.peak_in_flight = std::max(st_.peak_in_flight, running_.size());
    }
    return {};
  }

  // Preempts the newest sequences until the next step fits in the pool.
  void make_room() {
    while (!running_.empty() && next_step_blocks() > cache_.pool().available()) {
      if (running_.size() == 1) {
        decodings_[running_.back().index]->finish(Finish::kKvBudget);
        retire(0);
        return;
      }
      waiting_.push_front(running_.back().index);
      running_.pop_back();  // frees its blocks
      ++st_.preemptions;
    }
  }

  Status step() {
    tokens_.clear();
    caches_.clear();
    for (Running& r : running_) {
      tokens_.push_back(decodings_[r.index]->pending());
      caches_.push_back(&r.cache);
    }
    TOK_ASSIGN(std::span<const float> logits, fwd_.eval_step(tokens_, caches_));
    ++st_.steps;
    std::size_t nv = static_cast<std::size_t>(model_.config().n_vocab);
    std::vector<bool> finished(running_.size());
    for (std::size_t i = 0; i < running_.size(); ++i) {
      finished[i] = !decodings_[running_[i].index]->accept(logits.subspan(i * nv, nv),
                                                           running_[i].cache.size());
    }
    for (std::size_t i = running_.size(); i-- > 0;) {
      if (finished[i]) retire(i);
    }
    return {};
  }

  void retire(std::size_t i) {
    std::size_t idx = running_[i].index;
    running_.erase(running_.begin() + static_cast<std::ptrdiff_t>(i));
    emit(idx);
  }

  void emit(std::size_t idx) {
    Decoding& d = *decodings_[idx];
    st_.generated_tokens += d.ids().size();
    done_(idx, BatchResult{d.text(), d.ids(), d.reason(), d.prompt_tokens()});
    decodings_[idx].reset();
  }

  const Model& model_;
  Forward fwd_;
  kv::PagedKvCache& cache_;
  const std::vector<BatchRequest>& requests_;
  BatchOptions o_;
  const BatchDone& done_;
  std::vector<std::unique_ptr<Decoding>> decodings_;  // (requests) null once emitted
  std::deque<std::size_t> waiting_;                   // request indices; preempted ones first
  std::vector<Running> running_;                      // in admission order: newest last
  std::vector<bpe::TokenId> tokens_;                  // (running) scratch for eval_step
  std::vector<KvCache*> caches_;                      // (running)
  BatchStats st_;
};

}  // namespace

Status check_batch_request(const BatchRequest& r, const kv::PagedKvCache& cache, int ctx) {
  if (r.prompt.empty()) return make_error("the prompt is empty (and the model adds no BOS token)");
  if (r.prompt.size() > static_cast<std::size_t>(ctx)) {
    return make_error("the prompt has {} tokens, more than the context of {} (see --ctx)",
                      r.prompt.size(), ctx);
  }
  std::size_t bt = static_cast<std::size_t>(cache.config().block_tokens);
  std::size_t need = div_up(r.prompt.size() + 1, bt), cap = cache.pool().max_blocks();
  if (cap != 0 && need > cap) {
    return make_error(
        "the prompt has {} tokens and needs {} KV blocks of {} tokens; the KV budget holds {} "
        "(see --kv-budget)",
        r.prompt.size(), need, bt, cap);
  }
  return {};
}

Result<BatchStats> run_batch(const Model& model, ThreadPool& pool, kv::PagedKvCache& cache,
                             const std::vector<BatchRequest>& requests, const BatchOptions& options,
                             const BatchDone& done) {
  if (options.max_batch < 1 || options.max_batch > Forward::kMaxBatch) {
    return make_error("batch size {}: expected 1 to {}", options.max_batch, Forward::kMaxBatch);
  }
  for (std::size_t i = 0; i < requests.size(); ++i) {
    Status s = check_batch_request(requests[i], cache, options.ctx);
    if (!s.ok()) return make_error("request {}: {}", i, s.error().message);
  }
  Scheduler s(model, pool, cache, requests, options, done);
  return s.run();
}

}  // namespace tok::model
