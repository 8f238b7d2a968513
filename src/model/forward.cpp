#include "model/forward.hpp"

#include <algorithm>
#include <cmath>

#include "model/ops.hpp"

namespace tok::model {

Forward::Forward(const Model& model, ThreadPool& pool, const DotKernels& kernels)
    : model_(model), pool_(pool), k_(kernels) {
  const ModelConfig& c = model.config();
  std::size_t b = kMaxBatch, q = static_cast<std::size_t>(c.n_heads * c.head_dim);
  std::size_t kv = static_cast<std::size_t>(c.n_kv_heads * c.head_dim);
  std::size_t dim = static_cast<std::size_t>(c.dim), ffn = static_cast<std::size_t>(c.ffn);
  for (std::int64_t i = 0; i < c.head_dim / 2; ++i) {
    inv_freq_.push_back(static_cast<float>(
        std::pow(static_cast<double>(c.rope_base), -2.0 * static_cast<double>(i) / c.head_dim)));
  }
  x_.resize(b * dim);
  xb_.resize(b * std::max(dim, q));
  q_.resize(b * q);
  k_buf_.resize(b * kv);
  v_buf_.resize(b * kv);
  gate_.resize(b * ffn);
  up_.resize(b * ffn);
  tmp_.resize(b * dim);
  xq_.resize(b * (std::max(std::max(dim, ffn), q) / kQK + 1));
}

KvShape Forward::kv_shape(int ctx) const {
  const ModelConfig& c = model_.config();
  return KvShape{static_cast<int>(c.n_layers), static_cast<int>(c.n_kv_heads),
                 static_cast<int>(c.head_dim), ctx};
}

void Forward::matmul(const TensorView& w, const float* x, std::int64_t n, float* y) {
  std::int64_t cols = w.cols, rows = w.rows;
  ActBatch acts{x, cols, nullptr, cols / kQK, n};
  if (wants_q8(w.type)) {
    for (std::int64_t b = 0; b < n; ++b) k_.quantize_q8_0(x + b * cols, &xq_[b * (cols / kQK)], cols);
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

void Forward::attention(std::int64_t l, std::int64_t n, int pos0, const KvCache& cache) {
  const ModelConfig& c = model_.config();
  std::int64_t hd = c.head_dim, group = c.n_heads / c.n_kv_heads;
  float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  // One task per (token, head); each chunk has its own score buffer.
  auto body = [&](std::int64_t t0, std::int64_t t1) {
    std::vector<float> scores(static_cast<std::size_t>(pos0 + n));
    float* att = scores.data();
    for (std::int64_t t = t0; t < t1; ++t) {
      std::int64_t b = t / c.n_heads, h = t % c.n_heads, kvh = h / group;
      int pos = pos0 + static_cast<int>(b);
      const float* q = q_.data() + (b * c.n_heads + h) * hd;
      for (int p = 0; p <= pos; ++p) att[p] = k_.f32(q, cache.key(static_cast<int>(l), p) + kvh * hd, hd) * scale;
      softmax(att, pos + 1);
      float* out = xb_.data() + (b * c.n_heads + h) * hd;
      std::fill(out, out + hd, 0.0f);
      for (int p = 0; p <= pos; ++p) {
        const float* v = cache.value(static_cast<int>(l), p) + kvh * hd;
        float a = att[p];
        for (std::int64_t i = 0; i < hd; ++i) out[i] += a * v[i];
      }
    }
  };
  std::int64_t tasks = n * c.n_heads;
  if (pool_.size() == 1 || tasks * (pos0 + n) * hd < (1 << 14)) {
    body(0, tasks);
  } else {
    pool_.parallel_for(tasks, 1, body);
  }
}

Status Forward::layer(std::int64_t l, std::int64_t n, int pos0, KvCache& cache) {
  const ModelConfig& c = model_.config();
  const LayerWeights& w = model_.weights().layers[static_cast<std::size_t>(l)];
  std::int64_t dim = c.dim, hd = c.head_dim, qd = c.n_heads * hd, kvd = c.n_kv_heads * hd;
  for (std::int64_t b = 0; b < n; ++b) {
    rmsnorm(xb_.data() + b * dim, x_.data() + b * dim, static_cast<const float*>(w.attn_norm.data), dim, c.eps);
  }
  matmul(w.wq, xb_.data(), n, q_.data());
  matmul(w.wk, xb_.data(), n, k_buf_.data());
  matmul(w.wv, xb_.data(), n, v_buf_.data());
  for (std::int64_t b = 0; b < n; ++b) {
    float* q = q_.data() + b * qd;
    float* k = k_buf_.data() + b * kvd;
    float* v = v_buf_.data() + b * kvd;
    if (!w.bq.empty()) {
      add(q, static_cast<const float*>(w.bq.data), qd);
      add(k, static_cast<const float*>(w.bk.data), kvd);
      add(v, static_cast<const float*>(w.bv.data), kvd);
    }
    int pos = pos0 + static_cast<int>(b);
    for (std::int64_t h = 0; h < c.n_heads; ++h) rope(q + h * hd, hd, pos, inv_freq_.data(), c.rope_neox);
    for (std::int64_t h = 0; h < c.n_kv_heads; ++h) rope(k + h * hd, hd, pos, inv_freq_.data(), c.rope_neox);
    TOK_TRY(cache.append(static_cast<int>(l), pos, k, v));
  }
  attention(l, n, pos0, cache);  // writes (n, heads*hd) into xb_
  matmul(w.wo, xb_.data(), n, tmp_.data());
  add(x_.data(), tmp_.data(), n * dim);
  for (std::int64_t b = 0; b < n; ++b) {
    rmsnorm(xb_.data() + b * dim, x_.data() + b * dim, static_cast<const float*>(w.ffn_norm.data), dim, c.eps);
  }
  matmul(w.w_gate, xb_.data(), n, gate_.data());
  matmul(w.w_up, xb_.data(), n, up_.data());
  swiglu(gate_.data(), up_.data(), n * c.ffn);
  matmul(w.w_down, gate_.data(), n, tmp_.data());
  add(x_.data(), tmp_.data(), n * dim);
  return {};
}

Result<std::span<const float>> Forward::eval(std::span<const bpe::TokenId> tokens, KvCache& cache,
                                             bool all_logits) {
  const ModelConfig& c = model_.config();
  const Weights& w = model_.weights();
  std::size_t nv = static_cast<std::size_t>(c.n_vocab);
  logits_.resize(all_logits ? tokens.size() * nv : nv);
  for (std::size_t start = 0; start < tokens.size(); start += kMaxBatch) {
    std::int64_t n = std::min<std::int64_t>(kMaxBatch, static_cast<std::int64_t>(tokens.size() - start));
    int pos0 = cache.size();
    if (pos0 + n > cache.shape().capacity) {
      return make_error("context full: {} tokens do not fit in a context of {}", pos0 + n,
                        cache.shape().capacity);
    }
    for (std::int64_t b = 0; b < n; ++b) {
      bpe::TokenId id = tokens[start + static_cast<std::size_t>(b)];
      if (id >= nv) return make_error("token id {} is outside the model's vocabulary of {}", id, nv);
      dequantize_row(w.token_embd.type, w.token_embd.row(id), x_.data() + b * c.dim, c.dim);
    }
    for (std::int64_t l = 0; l < c.n_layers; ++l) TOK_TRY(layer(l, n, pos0, cache));
    bool last_chunk = start + static_cast<std::size_t>(n) == tokens.size();
    if (!all_logits && !last_chunk) continue;
    std::int64_t first = all_logits ? 0 : n - 1;
    for (std::int64_t b = first; b < n; ++b) {
      rmsnorm(xb_.data() + (b - first) * c.dim, x_.data() + b * c.dim,
              static_cast<const float*>(w.output_norm.data), c.dim, c.eps);
    }
    float* out = logits_.data() + (all_logits ? start * nv : 0);
    matmul(w.output, xb_.data(), n - first, out);
  }
  return std::span<const float>(logits_);
}

}  // namespace tok::model
