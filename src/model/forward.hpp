// Forward: runs the transformer over a batch of tokens at consecutive
// positions, appending their keys and values to a KvCache and producing
// logits. Holds only scratch buffers (the Model is shared, read-only), so one
// Forward per generation; prefill passes many tokens at once (each weight row
// is read once per batch), decode passes one.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "bpe/merge_table.hpp"
#include "core/result.hpp"
#include "model/kernels.hpp"
#include "model/kv_cache.hpp"
#include "model/model.hpp"
#include "model/thread_pool.hpp"

namespace tok::model {

class Forward {
 public:
  static constexpr std::int64_t kMaxBatch = 64;

  Forward(const Model& model, ThreadPool& pool, const DotKernels& kernels = best_kernels());

  // Evaluates tokens at positions cache.size(), cache.size()+1, ...
  // all_logits: logits of every token (tokens.size(), n_vocab) for scoring;
  // otherwise only of the last token. Returns a view valid until the next call.
  Result<std::span<const float>> eval(std::span<const bpe::TokenId> tokens, KvCache& cache,
                                      bool all_logits = false);

  // A KV cache shaped for this model, holding `ctx` positions.
  KvShape kv_shape(int ctx) const;

 private:
  struct Acts;
  // Y(b, r) = W row r . X(b) for b < n: (n, w.rows); X: (n, w.cols)
  void matmul(const TensorView& w, const float* x, std::int64_t n, float* y);
  Status layer(std::int64_t l, std::int64_t n, int pos0, KvCache& cache);
  void attention(std::int64_t l, std::int64_t n, int pos0, const KvCache& cache);

  const Model& model_;
  ThreadPool& pool_;
  const DotKernels& k_;
  std::vector<float> inv_freq_;  // (head_dim / 2)
  std::vector<float> x_;         // (batch, dim) residual stream
  std::vector<float> xb_;        // (batch, max(dim, heads*hd)) normed input / attention output
  std::vector<float> q_;         // (batch, heads * hd)
  std::vector<float> k_buf_;     // (batch, kv_heads * hd)
  std::vector<float> v_buf_;     // (batch, kv_heads * hd)
  std::vector<float> gate_;      // (batch, ffn)
  std::vector<float> up_;        // (batch, ffn)
  std::vector<float> tmp_;       // (batch, dim) projection output
  std::vector<BlockQ8_0> xq_;    // (batch, max(dim, ffn) / 32) activations as Q8_0
  std::vector<float> logits_;    // (batch or 1, n_vocab)
};

}  // namespace tok::model
