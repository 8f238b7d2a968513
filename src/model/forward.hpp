// Forward: runs the transformer over a batch of rows, appending their keys
// and values to KV caches and producing logits. Holds only scratch buffers
// (the Model is shared, read-only), so one Forward per generation. A batch is
// either many tokens of one sequence at consecutive positions (prefill, or
// decode with one token) or one token of each of many sequences, each with
// its own cache (eval_step: continuous batching, samples, beams). Either way
// each weight row is read once per batch.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <utility>
#include <vector>

#include "bpe/merge_table.hpp"
#include "core/result.hpp"
#include "core/scratch_vector.hpp"
#include "core/thread_pool.hpp"
#include "kv/paged_cache.hpp"
#include "model/act_q8_k.hpp"
#include "model/attention.hpp"
#include "model/kernels.hpp"
#include "model/kv_cache.hpp"
#include "model/model.hpp"

namespace tok::model {

// One row of a batch: the cache it appends to and reads from, and the
// position of its token in that cache.
struct BatchRow {
  KvCache* cache = nullptr;
  int pos = 0;
};

// Sees the attention probabilities of every row of a batch, layer by layer
// (after softmax; for H2O's accumulated attention and `--attn-report`).
// Called on the thread that called eval, once per layer and row, after the
// layer's attention: probs + h * stride holds head h's row.pos + 1 weights.
class AttentionObserver {
 public:
  virtual ~AttentionObserver() = default;
  virtual void on_attention(int layer, const BatchRow& row, int heads, const float* probs,
                            std::size_t stride) = 0;
};

class Forward {
 public:
  static constexpr std::int64_t kMaxBatch = 64;
  // Prompt tokens eval() runs through the layers together. Prefill decodes
  // K-quant weight rows once per pass (kernels_avx512_gemm_k.cpp), so longer
  // passes spread that cost: 256 against 64 made a 768-column Q6_K product
  // 1.5x faster, Q4_K 1.14x, Q8_0 1.07x (1 thread, 100M random model's shapes).
  static constexpr std::int64_t kPrefillChunk = 256;

  Forward(const Model& model, ThreadPool& pool, const DotKernels& kernels = best_kernels());

  // Evaluates tokens at positions cache.size(), cache.size()+1, ...
  // all_logits: logits of every token (tokens.size(), n_vocab) for scoring;
  // otherwise only of the last token. Returns a view valid until the next call.
  Result<std::span<const float>> eval(std::span<const bpe::TokenId> tokens, KvCache& cache,
                                      bool all_logits = false);

  // One token per sequence: tokens[i] is appended to caches[i] at position
  // caches[i]->size(). Returns the logits (tokens.size(), n_vocab), valid
  // until the next call. At most kMaxBatch sequences; a cache appears once.
  Result<std::span<const float>> eval_step(std::span<const bpe::TokenId> tokens,
                                           std::span<KvCache* const> caches);

  // A KV cache shaped for this model, holding `ctx` positions.
  KvShape kv_shape(int ctx) const;
  // Re-rotates a stored key row from cache position `from` to `to` (RoPE by
  // to - from, head by head): what a paged cache needs after eviction.
  kv::KeyShift key_shift() const;
  // nullptr: none (the default).
  void set_attention_observer(AttentionObserver* observer) { observer_ = observer; }

 private:
  // Y(b, r) = W row r . X(b) for b < n: (n, w.rows); X: (n, w.cols)
  void matmul(const TensorView& w, const float* x, std::int64_t n, float* y);
  // fn over [0, items) in chunks of `grain`, on all the threads for a prompt
  // of n tokens, on the calling thread alone for decode.
  void over_prompt(std::int64_t n, std::int64_t items, std::int64_t grain,
                   const std::function<void(std::int64_t, std::int64_t)>& fn);
  // Runs rows_ (embeddings already in x_) through every layer, then the
  // output head for rows [first, n) into out.
  Status run(std::int64_t n, std::int64_t first, float* out);
  Status layer(std::int64_t l, std::int64_t n);
  void attention(std::int64_t l, std::int64_t n);
  Status embed(std::int64_t b, bpe::TokenId id);
  // The error for a non-finite value in a stage of the pass (-1: the
  // embeddings, n_layers: the output head; NaN or not: nonfinite_nan_),
  // naming the first of the stage's weights that is not finite
  // (finite_weights.cpp).
  Error nonfinite_error(std::int64_t stage);
  void qk_norm_rope(const LayerWeights& w, std::int64_t l, std::int64_t n);
  void ffn(const LayerWeights& w, std::int64_t n);
  // Which of rope_inv_ a layer rotates with (its base and factors).
  std::size_t rope_table(std::int64_t l) const;
  // Rotates the first n_rot values of one key or query head by a position's
  // angles under a layer's RoPE table (cs: n_rot / 2 cosines, then sines, as
  // rope_angles gives them), times the model's rope_attn_factor.
  void rotate_head(float* x, const float* cs) const;

  const Model& model_;
  ThreadPool& pool_;
  const DotKernels& k_;
  // RoPE frequencies, one table per kind of layer: global (with the file's
  // factors, phi3's short ones), phi3's long factors, sliding-window layers.
  enum RopeKind : std::size_t { kRopeGlobal, kRopeLong, kRopeLocal, kRopeKinds };
  std::vector<float> rope_inv_[kRopeKinds];  // (n_rot / 2) each
  std::vector<float> rope_cs_[kRopeKinds];   // (positions, n_rot): cos then sin of each, for caches
                                             // that keep keys unrotated
  bool long_rope_ = false;            // phi3: the caches hold more than rope_orig_ctx positions
  core::ScratchVector<float> x_;      // (batch, dim) residual stream
  core::ScratchVector<float> xb_;     // (batch, max(dim, heads*hd)) normed input / attention output
  core::ScratchVector<float> q_;      // (batch, heads * hd)
  core::ScratchVector<float> k_buf_;  // (batch, kv_heads * hd)
  core::ScratchVector<float> v_buf_;  // (batch, kv_heads * hd)
  core::ScratchVector<float> gate_;   // (batch, ffn)
  core::ScratchVector<float> up_;     // (batch, ffn)
  core::ScratchVector<float> tmp_;    // (batch, dim) projection output
  core::ScratchVector<ggml::BlockQ8_0> xq_;  // (batch, max(dim, ffn) / 32) activations as Q8_0
  core::ScratchVector<ggml::BlockQ8_K>
      xk8_;    // (kKQuantTileMinTokens, max(dim, ffn) / 256) as Q8_K: wants_q8_k_rows
  ActQ8K xk_;  // (batch, cols) activations as q8_K for Q4_K / Q6_K prefill
  std::vector<float> logits_;   // (batch or 1, n_vocab)
  std::vector<BatchRow> rows_;  // (batch) cache and position of each row
  std::vector<float> probs_;    // (batch, heads, stride) attention weights for observer_
  std::size_t probs_stride_ = 0;
  // attention(): the row blocks [first, last) and each pool thread's buffers.
  std::vector<std::pair<std::int64_t, std::int64_t>> blocks_;
  std::vector<AttentionScratch> attention_scratch_;
  AttentionObserver* observer_ = nullptr;
  // A matmul's input or a layer's output held NaN or infinity (a NaN
  // among them: nonfinite_nan_) during the current pass.
  bool nonfinite_ = false;
  bool nonfinite_nan_ = false;
};

}  // namespace tok::model
