#include "model/model.hpp"

#include <cmath>
#include <filesystem>
#include <optional>

#include "core/number_format.hpp"
#include "core/system_memory.hpp"
#include "formats/gguf.hpp"
#include "formats/registry.hpp"
#include "model/finite_weights.hpp"
#include "model/model_config.hpp"
#include "model/repack.hpp"
#include "model/tensor.hpp"

namespace tok::model {
namespace {}  // namespace

Model::Model() = default;
Model::Model(Model&&) noexcept = default;
Model& Model::operator=(Model&&) noexcept = default;
Model::~Model() = default;

// Looks up a tensor and checks its shape (rows, cols); 1-D tensors have rows 1.
// Norm and bias vectors in half precision are widened into `owned`.
static Result<TensorView> tensor(const formats::GgufFile& f, const std::string& name,
                                 std::int64_t rows, std::int64_t cols, bool optional,
                                 std::vector<std::vector<float>>* owned) {
  const formats::TensorInfo* t = f.find_tensor(name);
  if (!t) {
    if (optional) return TensorView{};
    return make_error("{}: tensor {} is missing", f.path(), name);
  }
  // The reader bounds the element count unless a dimension is 0; a weight
  // with no elements is wrong anyway, and refusing it keeps rows from overflowing.
  for (std::uint64_t dim : t->dims) {
    if (dim == 0) return make_error("{}: tensor {} has a dimension of 0", f.path(), name);
  }
  std::int64_t got_cols = static_cast<std::int64_t>(t->dims[0]);
  std::int64_t got_rows = t->dims.size() > 1 ? static_cast<std::int64_t>(t->dims[1]) : 1;
  for (std::size_t i = 2; i < t->dims.size(); ++i)
    got_rows *= static_cast<std::int64_t>(t->dims[i]);
  if (got_rows != rows || got_cols != cols) {
    return make_error("{}: tensor {} has shape [{}, {}], expected [{}, {}]", f.path(), name,
                      got_cols, got_rows, cols, rows);
  }
  if (!ggml::is_computable(t->type)) {
    return make_error("{}: tensor {} has type {}, which tok cannot compute with ({})", f.path(),
                      name, ggml::type_name(t->type), ggml::computable_type_names());
  }
  TensorView v{static_cast<DType>(t->type), rows, cols, t->data};
  if (rows == 1 && owned && v.type != DType::kF32) {
    owned->emplace_back(static_cast<std::size_t>(cols));
    dequantize_row(v.type, v.data, owned->back().data(), cols);
    v = TensorView{DType::kF32, 1, cols, owned->back().data()};
  }
  return v;
}

// Rows [first, first + rows) of a matrix: the parts of a fused tensor
// (phi3's attn_qkv and gate/up ffn_up) are read as separate matrices.
static TensorView row_range(const TensorView& t, std::int64_t first, std::int64_t rows) {
  return TensorView{t.type, rows, t.cols, t.row(first)};
}

// q, k, v: separate tensors, or one fused attn_qkv (phi3) split by rows.
static Status load_qkv(const formats::GgufFile& f, const ModelConfig& c, const std::string& p,
                       LayerWeights& l, std::vector<std::vector<float>>* own) {
  std::int64_t d = c.dim, q = c.n_heads * c.head_dim, kv = c.n_kv_heads * c.head_dim;
  if (f.find_tensor(p + "attn_qkv.weight")) {
    TOK_ASSIGN(TensorView qkv, tensor(f, p + "attn_qkv.weight", q + 2 * kv, d, false, own));
    l.wq = row_range(qkv, 0, q);
    l.wk = row_range(qkv, q, kv);
    l.wv = row_range(qkv, q + kv, kv);
  } else {
    TOK_ASSIGN(l.wq, tensor(f, p + "attn_q.weight", q, d, false, own));
    TOK_ASSIGN(l.wk, tensor(f, p + "attn_k.weight", kv, d, false, own));
    TOK_ASSIGN(l.wv, tensor(f, p + "attn_v.weight", kv, d, false, own));
  }
  bool bias = c.arch == "qwen2";  // required there, optional elsewhere
  TOK_ASSIGN(l.bq, tensor(f, p + "attn_q.bias", 1, q, !bias, own));
  TOK_ASSIGN(l.bk, tensor(f, p + "attn_k.bias", 1, kv, !bias, own));
  TOK_ASSIGN(l.bv, tensor(f, p + "attn_v.bias", 1, kv, !bias, own));
  if (l.bq.empty() != l.bk.empty() || l.bq.empty() != l.bv.empty()) {
    return make_error("{}: {} has some of the q, k, v biases but not all", f.path(), p);
  }
  bool qk_norm = c.arch == "qwen3" || c.arch == "gemma3";
  TOK_ASSIGN(l.q_norm, tensor(f, p + "attn_q_norm.weight", 1, c.head_dim, !qk_norm, own));
  TOK_ASSIGN(l.k_norm, tensor(f, p + "attn_k_norm.weight", 1, c.head_dim, !qk_norm, own));
  TOK_ASSIGN(l.wo, tensor(f, p + "attn_output.weight", d, q, false, own));
  return {};
}

// Gate and up: separate tensors, or phi3's ffn_up holding gate then up.
static Status load_ffn(const formats::GgufFile& f, const ModelConfig& c, const std::string& p,
                       LayerWeights& l, std::vector<std::vector<float>>* own) {
  std::int64_t d = c.dim;
  if (c.arch == "phi3") {
    TOK_ASSIGN(TensorView up, tensor(f, p + "ffn_up.weight", 2 * c.ffn, d, false, own));
    l.w_gate = row_range(up, 0, c.ffn);
    l.w_up = row_range(up, c.ffn, c.ffn);
  } else {
    TOK_ASSIGN(l.w_gate, tensor(f, p + "ffn_gate.weight", c.ffn, d, false, own));
    TOK_ASSIGN(l.w_up, tensor(f, p + "ffn_up.weight", c.ffn, d, false, own));
  }
  TOK_ASSIGN(l.w_down, tensor(f, p + "ffn_down.weight", d, c.ffn, false, own));
  return {};
}

static Status load_weights(const formats::GgufFile& f, const ModelConfig& c, Weights& w,
                           std::vector<std::vector<float>>& owned) {
  auto* own = &owned;
  std::int64_t d = c.dim;
  TOK_ASSIGN(w.token_embd, tensor(f, "token_embd.weight", c.n_vocab, d, false, own));
  TOK_ASSIGN(w.output_norm, tensor(f, "output_norm.weight", 1, d, false, own));
  TOK_ASSIGN(w.output, tensor(f, "output.weight", c.n_vocab, d, true, own));
  if (w.output.empty()) w.output = w.token_embd;  // tied embeddings
  std::int64_t half = c.n_rot / 2;
  TOK_ASSIGN(w.rope_freqs, tensor(f, "rope_freqs.weight", 1, half, true, own));
  TOK_ASSIGN(w.rope_short, tensor(f, "rope_factors_short.weight", 1, half, true, own));
  TOK_ASSIGN(w.rope_long, tensor(f, "rope_factors_long.weight", 1, half, true, own));
  for (const TensorView* t : {&w.rope_freqs, &w.rope_short, &w.rope_long}) {
    const float* v = static_cast<const float*>(t->data);
    for (std::int64_t i = 0; !t->empty() && i < half; ++i) {
      // A factor divides a frequency: 0, negative or NaN makes rotations NaN.
      if (!(std::isfinite(v[i]) && v[i] > 0)) {
        return make_error("{}: a RoPE frequency factor is {}; expected positive numbers", f.path(),
                          v[i]);
      }
    }
  }
  bool post_norms = c.arch == "gemma3";
  for (std::int64_t i = 0; i < c.n_layers; ++i) {
    std::string p = "blk." + std::to_string(i) + ".";
    LayerWeights l;
    TOK_ASSIGN(l.attn_norm, tensor(f, p + "attn_norm.weight", 1, d, false, own));
    TOK_TRY(load_qkv(f, c, p, l, own));
    TOK_ASSIGN(l.post_attn_norm,
               tensor(f, p + "post_attention_norm.weight", 1, d, !post_norms, own));
    TOK_ASSIGN(l.ffn_norm, tensor(f, p + "ffn_norm.weight", 1, d, false, own));
    TOK_TRY(load_ffn(f, c, p, l, own));
    TOK_ASSIGN(l.post_ffn_norm, tensor(f, p + "post_ffw_norm.weight", 1, d, !post_norms, own));
    w.layers.push_back(l);
  }
  return {};
}

namespace {
// The file read into huge pages (formats::GgufFile::read: decode streams
// every weight once per token, and through a mapping's 4 KiB pages it ran at
// half the memory's rate), unless that would take more than half the memory
// available: then it is mapped, and a model larger than memory still runs,
// paging from disk, instead of meeting the OOM killer.
Result<formats::GgufFile> open_weights(const std::string& path) {
  std::error_code ec;
  std::uintmax_t size = std::filesystem::file_size(path, ec);
  std::optional<std::uint64_t> avail = available_memory();
  if (!ec && avail && size > *avail / 2) return formats::GgufFile::open(path);
  return formats::GgufFile::read(path);
}
}  // namespace

Result<Model> Model::load(const std::string& path, bool with_tokenizer) {
  Model m;
  m.path_ = path;
  TOK_ASSIGN(formats::GgufFile file, open_weights(path));
  m.file_ = std::make_unique<formats::GgufFile>(std::move(file));
  const formats::GgufFile& f = *m.file_;
  TOK_ASSIGN(m.config_, read_config(f));
  ModelConfig& c = m.config_;
  const formats::TensorInfo* embd = f.find_tensor("token_embd.weight");
  if (!embd) return make_error("{}: tensor token_embd.weight is missing", path);
  if (embd->dims.size() != 2) {
    return make_error(
        "{}: tensor token_embd.weight has {} dimensions; expected 2 (dim, vocabulary)", path,
        embd->dims.size());
  }
  c.n_vocab = static_cast<std::int64_t>(embd->dims[1]);
  TOK_TRY(load_weights(f, c, m.weights_, m.owned_));
  TOK_TRY(check_vector_weights(m));
  if (f.owns_data()) repack_weights(m.weights_);
  if (!with_tokenizer) return m;
  TOK_ASSIGN(m.tokenizer_, formats::load_tokenizer(path));
  if (m.tokenizer_.vocab_size() > static_cast<std::size_t>(c.n_vocab)) {
    return make_error("{}: the tokenizer has {} tokens but the model only {} embeddings", path,
                      m.tokenizer_.vocab_size(), c.n_vocab);
  }
  return m;
}

std::uint64_t Model::file_bytes() const { return file_->file_size(); }

std::uint64_t Model::weight_bytes() const {
  std::uint64_t n = weights_.output.bytes();
  for (const auto& l : weights_.layers) {
    for (const TensorView* t : {&l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up, &l.w_down})
      n += t->bytes();
  }
  return n;
}

std::uint64_t run_memory_bytes(const ModelConfig& c, std::int64_t ctx) {
  // Every factor is bounded (the tensors that fix them are inside the file,
  // ctx <= kMaxContext), so long double only guards against overflow.
  long double kv = 2.0L * 4 * c.n_layers * ctx * c.n_kv_heads * c.head_dim;
  long double width = 3.0L * c.dim + 2.0L * c.n_heads * c.head_dim + 2.0L * c.ffn;
  long double scratch = 4.0L * 64 * width + 4.0L * 2 * c.n_vocab;
  long double total = kv + scratch;
  return total >= 1.8e19L ? UINT64_MAX : static_cast<std::uint64_t>(total);
}

Status check_run_memory(const Model& m, std::int64_t ctx) {
  const ModelConfig& c = m.config();
  if (ctx > c.ctx) {
    return make_error("{}: --ctx {} is larger than the model's context of {} tokens", m.path(), ctx,
                      c.ctx);
  }
  std::uint64_t need = run_memory_bytes(c, ctx);
  auto avail = available_memory();
  if (avail && need > *avail) {
    return make_error(
        "{}: a context of {} tokens needs {} (KV cache of {} layers), more "
        "than the {} of memory available; pass a smaller --ctx",
        m.path(), ctx, human_bytes(need), c.n_layers, human_bytes(*avail));
  }
  return {};
}

}  // namespace tok::model
