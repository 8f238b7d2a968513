#include "model/forward.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "model/act_q8_k.hpp"
#include "model/attention.hpp"
#include "model/ops.hpp"

namespace tok::model {
namespace {

// Gemma 3's norms of a sublayer's output before the residual add: y's n
// rows of dim, in place; nothing when the model has none.
void post_norm(float* y, const TensorView& w, std::int64_t n, std::int64_t dim, float eps) {
  if (w.empty()) return;
  const float* g = static_cast<const float*>(w.data);
  for (std::int64_t b = 0; b < n; ++b) rmsnorm(y + b * dim, y + b * dim, g, dim, eps);
}

}  // namespace

Forward::Forward(const Model& model, ThreadPool& pool, const DotKernels& kernels)
    : model_(model), pool_(pool), k_(kernels) {
  const ModelConfig& c = model.config();
  std::size_t b = std::max(kMaxBatch, kPrefillChunk),
              q = static_cast<std::size_t>(c.n_heads * c.head_dim);
  std::size_t kv = static_cast<std::size_t>(c.n_kv_heads * c.head_dim);
  std::size_t dim = static_cast<std::size_t>(c.dim), ffn = static_cast<std::size_t>(c.ffn);
  // As ggml_rope_ext: theta_i = pos * freq_scale * base^(-2i/n_rot) / factor_i.
  const Weights& w = model.weights();
  auto table = [&](float base, float freq_scale, const TensorView& factors) {
    std::vector<float> inv;
    for (std::int64_t i = 0; i < c.n_rot / 2; ++i) {
      double f =
          freq_scale * std::pow(static_cast<double>(base), -2.0 * static_cast<double>(i) / c.n_rot);
      if (!factors.empty()) f /= static_cast<const float*>(factors.data)[i];
      inv.push_back(static_cast<float>(f));
    }
    return inv;
  };
  const TensorView& global = !w.rope_freqs.empty() ? w.rope_freqs : w.rope_short;
  rope_inv_[kRopeGlobal] = table(c.rope_base, c.rope_freq_scale, global);
  rope_inv_[kRopeLong] =
      table(c.rope_base, c.rope_freq_scale, w.rope_long.empty() ? global : w.rope_long);
  rope_inv_[kRopeLocal] = table(c.rope_base_swa, 1.0f, TensorView{});
  x_.resize(b * dim);
  xb_.resize(b * std::max(dim, q));
  q_.resize(b * q);
  k_buf_.resize(b * kv);
  v_buf_.resize(b * kv);
  gate_.resize(b * ffn);
  up_.resize(b * ffn);
  tmp_.resize(b * dim);
  xq_.resize(b * (std::max(std::max(dim, ffn), q) / ggml::kQK + 1));
  xk8_.resize(kKQuantTileMinTokens * (std::max(std::max(dim, ffn), q) / ggml::kQKK + 1));
}

KvShape Forward::kv_shape(int ctx) const {
  const ModelConfig& c = model_.config();
  return KvShape{static_cast<int>(c.n_layers), static_cast<int>(c.n_kv_heads),
                 static_cast<int>(c.head_dim), ctx};
}

void Forward::over_prompt(std::int64_t n, std::int64_t items, std::int64_t grain,
                          const std::function<void(std::int64_t, std::int64_t)>& fn) {
  // Decode's one row (or a few) is not worth waking the workers for.
  if (pool_.size() == 1 || n < 8) {
    fn(0, items);
  } else {
    pool_.parallel_for(items, grain, fn);
  }
}

void Forward::matmul(const TensorView& w, const float* x, std::int64_t n, float* y) {
  std::int64_t cols = w.cols, rows = w.rows;
  // A NaN in the activations would not always reach the output: quantizing
  // them to Q8_0 / Q8_K turns it into an arbitrary integer (a float-to-int
  // conversion C++ leaves undefined), differently in each kernel set. So it
  // is caught here, the product is not computed (its output is NaN), and
  // run() reports it after the layer.
  if (!all_finite(x, n * cols)) {
    if (!nonfinite_) nonfinite_nan_ = has_nan(x, n * cols);
    nonfinite_ = true;
    std::fill(y, y + n * rows, std::numeric_limits<float>::quiet_NaN());
    return;
  }
  ActBatch acts{x, cols, nullptr, cols / ggml::kQK, n};
  // A prompt's activations are quantized by all the threads (one thread
  // quantizing them while the others waited cost 3-4% of a 2-thread Q4_K or
  // Q8_0 prefill).
  // q8_K first: Q2_K, Q3_K and Q5_K prompts take it with AVX-512 (the tiles), their decode Q8_K
  // blocks where the set has kernels for them (wants_q8_k_rows), else Q8_0.
  if (wants_q8_k(k_, w.type, n)) {
    resize_act_q8_k(n, cols, xk_);
    over_prompt(n, n, 1, [&](std::int64_t t0, std::int64_t t1) {
      quantize_act_q8_k_rows(k_, x, cols, t0, t1, xk_);
    });
    acts.xk = &xk_;
  } else if (wants_q8_k_rows(k_, w.type, n)) {  // before Q8_0: Q2_K, Q3_K, Q5_K want either
    for (std::int64_t b = 0; b < n; ++b)
      quantize_row_q8_k(k_, x + b * cols, &xk8_[b * (cols / ggml::kQKK)], cols);
    acts.xk8 = xk8_.data();
    acts.xk8_stride = cols / ggml::kQKK;
  } else if (wants_q8(w.type)) {
    over_prompt(n, n, 1, [&](std::int64_t t0, std::int64_t t1) {
      for (std::int64_t b = t0; b < t1; ++b)
        k_.quantize_q8_0(x + b * cols, &xq_[b * (cols / ggml::kQK)], cols);
    });
    acts.xq = xq_.data();
  }
  auto body = [&](std::int64_t r0, std::int64_t r1) { k_.gemm(k_, w, r0, r1, acts, y, rows); };
  // Waking the workers costs a few microseconds (much more on a busy
  // machine): not worth it for products that take about as long (the
  // default model's matrices at decode).
  if (pool_.size() == 1 || static_cast<std::uint64_t>(rows * cols * n) < (1u << 18)) {
    body(0, rows);
  } else {
    pool_.parallel_for(rows, 16, body);
  }
}

void Forward::attention(std::int64_t l, std::int64_t n) {
  const ModelConfig& c = model_.config();
  std::int64_t hd = c.head_dim, group = c.n_heads / c.n_kv_heads;
  float scale = c.attn_scale;
  // Sliding-window layers see the last swa_window positions (llama.cpp's
  // standard SWA: key p is masked for query pos when pos - p >= window).
  int window = c.is_swa(l) ? static_cast<int>(c.swa_window) : 0;
  int layer = static_cast<int>(l), max_pos = 0;
  for (std::int64_t b = 0; b < n; ++b) max_pos = std::max(max_pos, rows_[b].pos);
  if (observer_) {
    probs_stride_ = static_cast<std::size_t>(max_pos) + 1;
    probs_.resize(static_cast<std::size_t>(n * c.n_heads) * probs_stride_);
  }
  // Caches that keep keys unrotated: the cos and sin of every position up
  // to max_pos, made once (the workers below only read them).
  std::size_t rot = static_cast<std::size_t>(c.n_rot);
  std::size_t half = rot / 2;
  bool rotate_keys =
      c.uses_rope(l) && std::any_of(rows_.begin(), rows_.begin() + n,
                                    [](const BatchRow& r) { return r.cache->keys_before_rope(); });
  std::vector<float>& cs_table = rope_cs_[rope_table(l)];
  const std::vector<float>& inv = rope_inv_[rope_table(l)];
  std::size_t have = cs_table.size() / rot, need = static_cast<std::size_t>(max_pos) + 1;
  if (rotate_keys && need > have) {
    cs_table.resize(need * rot);
    for (std::size_t p = have; p < need; ++p) {
      float* cs = cs_table.data() + p * rot;
      rope_angles(c.n_rot, static_cast<std::int64_t>(p), inv.data(), cs, cs + half);
    }
  }
  // One task per (block of rows, KV head) (model/attention.cpp): up to
  // kQueryBlock consecutive rows of the same sequence read its cache
  // together, once, where row by row a long prompt's attention streamed the
  // cache from memory for every row.
  // Each row of a block keeps its scores (group x positions floats) until
  // its values are summed: blocks shrink past 16 MiB of them per thread
  // (32K positions at a group of 8).
  constexpr std::int64_t kQueryBlock = 16;
  const std::int64_t row_scores = group * (max_pos + 1) * static_cast<std::int64_t>(sizeof(float));
  const std::int64_t block =
      std::clamp<std::int64_t>((std::int64_t{16} << 20) / row_scores, 1, kQueryBlock);
  blocks_.clear();
  for (std::int64_t b = 0; b < n;) {
    std::int64_t e = b + 1;
    while (e < n && e - b < block && rows_[e].cache == rows_[b].cache) ++e;
    blocks_.push_back({b, e});
    b = e;
  }
  auto run = [&](std::int64_t item, AttentionScratch& scratch) {
    const auto [b0, b1] = blocks_[static_cast<std::size_t>(item / c.n_kv_heads)];
    const std::int64_t kvh = item % c.n_kv_heads;
    AttentionTask tasks[kQueryBlock];
    for (std::int64_t b = b0; b < b1; ++b) {
      std::int64_t h0 = b * c.n_heads + kvh * group;
      AttentionTask& task = tasks[b - b0];
      task = AttentionTask{rows_[b].cache,       layer,
                           rows_[b].pos,         static_cast<int>(kvh),
                           static_cast<int>(hd), static_cast<int>(group),
                           q_.data() + h0 * hd,  xb_.data() + h0 * hd};
      if (observer_) task.probs = probs_.data() + static_cast<std::size_t>(h0) * probs_stride_;
      task.probs_stride = probs_stride_;
      if (rotate_keys && rows_[b].cache->keys_before_rope()) task.rope_cs = cs_table.data();
      task.n_rot = static_cast<int>(c.n_rot);
      task.rope_attn_factor = c.rope_attn_factor;
      task.first = window > 0 ? std::max(0, rows_[b].pos - window + 1) : 0;
      task.rope_neox = c.rope_neox;
      task.scale = scale;
    }
    attend_rows(k_, tasks, static_cast<int>(b1 - b0), scratch);
  };
  const std::int64_t items = static_cast<std::int64_t>(blocks_.size()) * c.n_kv_heads;
  if (pool_.size() == 1 || n * c.n_heads * (max_pos + 1) * hd < (1 << 14)) {
    AttentionScratch scratch;
    for (std::int64_t i = 0; i < items; ++i) run(i, scratch);
  } else {
    // Handed out one at a time: under the causal mask later rows cost more,
    // and an even split of the items gave the last thread most of the work.
    attention_scratch_.resize(pool_.size());
    (void)pool_.for_each(static_cast<std::size_t>(items), [&](std::size_t i, unsigned w) {
      run(static_cast<std::int64_t>(i), attention_scratch_[w]);
    });
  }
  if (observer_) {
    for (std::int64_t b = 0; b < n; ++b) {
      observer_->on_attention(
          layer, rows_[b], static_cast<int>(c.n_heads),
          probs_.data() + static_cast<std::size_t>(b * c.n_heads) * probs_stride_, probs_stride_);
    }
  }
}

Status Forward::layer(std::int64_t l, std::int64_t n) {
  const ModelConfig& c = model_.config();
  const LayerWeights& w = model_.weights().layers[static_cast<std::size_t>(l)];
  std::int64_t dim = c.dim, hd = c.head_dim, qd = c.n_heads * hd, kvd = c.n_kv_heads * hd;
  for (std::int64_t b = 0; b < n; ++b) {
    rmsnorm(xb_.data() + b * dim, x_.data() + b * dim, static_cast<const float*>(w.attn_norm.data),
            dim, c.eps);
  }
  matmul(w.wq, xb_.data(), n, q_.data());
  matmul(w.wk, xb_.data(), n, k_buf_.data());
  matmul(w.wv, xb_.data(), n, v_buf_.data());
  for (std::int64_t b = 0; b < n; ++b) {
    if (w.bq.empty()) break;
    add(q_.data() + b * qd, static_cast<const float*>(w.bq.data), qd);
    add(k_buf_.data() + b * kvd, static_cast<const float*>(w.bk.data), kvd);
    add(v_buf_.data() + b * kvd, static_cast<const float*>(w.bv.data), kvd);
  }
  qk_norm_rope(w, l, n);
  for (std::int64_t b = 0; b < n; ++b) {
    TOK_TRY(rows_[b].cache->append(static_cast<int>(l), rows_[b].pos, k_buf_.data() + b * kvd,
                                   v_buf_.data() + b * kvd));
  }
  attention(l, n);  // writes (n, heads*hd) into xb_
  matmul(w.wo, xb_.data(), n, tmp_.data());
  post_norm(tmp_.data(), w.post_attn_norm, n, dim, c.eps);
  add(x_.data(), tmp_.data(), n * dim);
  for (std::int64_t b = 0; b < n; ++b) {
    rmsnorm(xb_.data() + b * dim, x_.data() + b * dim, static_cast<const float*>(w.ffn_norm.data),
            dim, c.eps);
  }
  ffn(w, n);
  post_norm(tmp_.data(), w.post_ffn_norm, n, dim, c.eps);
  add(x_.data(), tmp_.data(), n * dim);
  return {};
}

// Per-head RMSNorm of q and k (qwen3, gemma3), then RoPE (keys only when
// the cache keeps them rotated; else attention rotates them as it reads).
void Forward::qk_norm_rope(const LayerWeights& w, std::int64_t l, std::int64_t n) {
  const ModelConfig& c = model_.config();
  std::int64_t hd = c.head_dim;
  std::vector<float> cs(
      static_cast<std::size_t>(c.n_rot));  // (n_rot / 2) cos, then (n_rot / 2) sin
  for (std::int64_t b = 0; b < n; ++b) {
    float* q = q_.data() + b * c.n_heads * hd;
    float* k = k_buf_.data() + b * c.n_kv_heads * hd;
    if (!w.q_norm.empty()) {
      for (std::int64_t h = 0; h < c.n_heads; ++h)
        rmsnorm(q + h * hd, q + h * hd, static_cast<const float*>(w.q_norm.data), hd, c.eps);
      for (std::int64_t h = 0; h < c.n_kv_heads; ++h)
        rmsnorm(k + h * hd, k + h * hd, static_cast<const float*>(w.k_norm.data), hd, c.eps);
    }
    if (!c.uses_rope(l)) continue;
    // The position's angles once for all heads: computed per head, their
    // sincos calls were 5% of a 512-token prefill of the 100M model.
    rope_angles(c.n_rot, rows_[b].pos, rope_inv_[rope_table(l)].data(), cs.data(),
                cs.data() + c.n_rot / 2);
    for (std::int64_t h = 0; h < c.n_heads; ++h) rotate_head(q + h * hd, cs.data());
    if (!rows_[b].cache->keys_before_rope()) {
      for (std::int64_t h = 0; h < c.n_kv_heads; ++h) rotate_head(k + h * hd, cs.data());
    }
  }
}

// xb_ (n, dim) -> tmp_ (n, dim): down(act(gate) * up).
void Forward::ffn(const LayerWeights& w, std::int64_t n) {
  const ModelConfig& c = model_.config();
  matmul(w.w_gate, xb_.data(), n, gate_.data());
  matmul(w.w_up, xb_.data(), n, up_.data());
  // The gating shared by the threads over a prompt (an exponential or a
  // tanh per value: 4% of a 2-thread Q4_K prefill on one thread alone);
  // the values are the same however the range is cut.
  over_prompt(n, n * c.ffn, 64, [&](std::int64_t i0, std::int64_t i1) {
    if (c.gelu)
      geglu(gate_.data() + i0, up_.data() + i0, i1 - i0);
    else
      swiglu(gate_.data() + i0, up_.data() + i0, i1 - i0);
  });
  matmul(w.w_down, gate_.data(), n, tmp_.data());
}

std::size_t Forward::rope_table(std::int64_t l) const {
  if (model_.config().is_swa(l)) return kRopeLocal;
  return long_rope_ ? kRopeLong : kRopeGlobal;
}

void Forward::rotate_head(float* x, const float* cs) const {
  const ModelConfig& c = model_.config();
  rope_cs(x, c.n_rot, cs, cs + c.n_rot / 2, c.rope_neox);
  if (c.rope_attn_factor != 1.0f) scale(x, c.rope_attn_factor, c.n_rot);
}

Status Forward::embed(std::int64_t b, bpe::TokenId id) {
  const ModelConfig& c = model_.config();
  const Weights& w = model_.weights();
  std::size_t nv = static_cast<std::size_t>(c.n_vocab);
  if (id >= nv) return make_error("token id {} is outside the model's vocabulary of {}", id, nv);
  float* x = x_.data() + b * c.dim;
  dequantize_row(w.token_embd.type, w.token_embd.row(id), x, c.dim);
  if (!all_finite(x, c.dim)) {
    nonfinite_nan_ = has_nan(x, c.dim);
    return nonfinite_error(-1);
  }
  if (c.embed_scale != 1.0f) scale(x, c.embed_scale, c.dim);
  return {};
}

Status Forward::run(std::int64_t n, std::int64_t first, float* out) {
  const ModelConfig& c = model_.config();
  const Weights& w = model_.weights();
  // phi3's LongRoPE: the long factors once the context passes the trained one.
  long_rope_ = rows_[0].cache->shape().capacity > c.rope_orig_ctx;
  // Every layer's output is checked (n x dim values, next to its n x dim^2
  // multiply-adds): a NaN is named at the first layer it comes from, and no
  // kernel set samples from NaN logits.
  nonfinite_ = false;
  for (std::int64_t l = 0; l < c.n_layers; ++l) {
    TOK_TRY(layer(l, n));
    if (!nonfinite_ && !all_finite(x_.data(), n * c.dim)) {
      nonfinite_ = true;
      nonfinite_nan_ = has_nan(x_.data(), n * c.dim);
    }
    if (nonfinite_) return nonfinite_error(l);
  }
  if (!out) return {};
  for (std::int64_t b = first; b < n; ++b) {
    rmsnorm(xb_.data() + (b - first) * c.dim, x_.data() + b * c.dim,
            static_cast<const float*>(w.output_norm.data), c.dim, c.eps);
  }
  matmul(w.output, xb_.data(), n - first, out);
  const std::int64_t n_out = (n - first) * c.n_vocab;
  if (!nonfinite_ && !all_finite(out, n_out)) {
    nonfinite_ = true;
    nonfinite_nan_ = has_nan(out, n_out);
  }
  if (nonfinite_) return nonfinite_error(c.n_layers);
  return {};
}

Result<std::span<const float>> Forward::eval(std::span<const bpe::TokenId> tokens, KvCache& cache,
                                             bool all_logits) {
  std::size_t nv = static_cast<std::size_t>(model_.config().n_vocab);
  logits_.resize(all_logits ? tokens.size() * nv : nv);
  for (std::size_t start = 0; start < tokens.size(); start += kPrefillChunk) {
    std::int64_t n =
        std::min<std::int64_t>(kPrefillChunk, static_cast<std::int64_t>(tokens.size() - start));
    int pos0 = cache.size();
    if (pos0 + n > cache.shape().capacity) {
      return make_error("context full: {} tokens do not fit in a context of {}", pos0 + n,
                        cache.shape().capacity);
    }
    rows_.resize(static_cast<std::size_t>(n));
    for (std::int64_t b = 0; b < n; ++b) {
      rows_[b] = BatchRow{&cache, pos0 + static_cast<int>(b)};
      TOK_TRY(embed(b, tokens[start + static_cast<std::size_t>(b)]));
    }
    bool last_chunk = start + static_cast<std::size_t>(n) == tokens.size();
    float* out = nullptr;
    if (all_logits)
      out = logits_.data() + start * nv;
    else if (last_chunk)
      out = logits_.data();
    TOK_TRY(run(n, all_logits ? 0 : n - 1, out));
  }
  return std::span<const float>(logits_);
}

Result<std::span<const float>> Forward::eval_step(std::span<const bpe::TokenId> tokens,
                                                  std::span<KvCache* const> caches) {
  TOK_ASSERT(tokens.size() == caches.size() &&
             tokens.size() <= static_cast<std::size_t>(kMaxBatch));
  std::int64_t n = static_cast<std::int64_t>(tokens.size());
  std::size_t nv = static_cast<std::size_t>(model_.config().n_vocab);
  logits_.resize(tokens.size() * nv);
  rows_.resize(tokens.size());
  for (std::int64_t b = 0; b < n; ++b) {
    KvCache* cache = caches[static_cast<std::size_t>(b)];
    if (cache->size() + 1 > cache->shape().capacity) {
      return make_error("context full: {} tokens do not fit in a context of {}", cache->size() + 1,
                        cache->shape().capacity);
    }
    rows_[b] = BatchRow{cache, cache->size()};
    TOK_TRY(embed(b, tokens[static_cast<std::size_t>(b)]));
  }
  if (n > 0) TOK_TRY(run(n, 0, logits_.data()));
  return std::span<const float>(logits_);
}

kv::KeyShift Forward::key_shift() const {
  // A pure rotation by to - from: the stored key already carries rope_attn_factor.
  return [this](int layer, float* row, int from, int to) {
    const ModelConfig& c = model_.config();
    if (!c.uses_rope(layer)) return;
    const float* inv = rope_inv_[rope_table(layer)].data();
    for (std::int64_t h = 0; h < c.n_kv_heads; ++h)
      rope(row + h * c.head_dim, c.n_rot, to - from, inv, c.rope_neox);
  };
}

}  // namespace tok::model
