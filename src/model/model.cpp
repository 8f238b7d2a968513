#include "model/model.hpp"

#include <cmath>
#include <filesystem>
#include <optional>

#include "core/number_format.hpp"
#include "core/system_memory.hpp"
#include "formats/gguf.hpp"
#include "formats/registry.hpp"
#include "model/quant.hpp"

namespace tok::model {
namespace {

// Reads an integer hyperparameter "ARCH.key".
Result<std::int64_t> hparam(const formats::GgufFile& f, const std::string& arch, const char* key) {
  TOK_ASSIGN(std::uint32_t v, f.get_u32(arch + "." + key));
  if (v == 0) return make_error("{}: {}.{} is 0", f.path(), arch, key);
  return static_cast<std::int64_t>(v);
}

Result<ModelConfig> read_config(const formats::GgufFile& f) {
  ModelConfig c;
  TOK_ASSIGN(std::string_view arch, f.get_string("general.architecture"));
  c.arch = std::string(arch);
  if (c.arch != "llama" && c.arch != "qwen2") {
    return make_error("{}: architecture '{}' is not supported (tok runs llama and qwen2)", f.path(),
                      c.arch);
  }
  if (auto n = f.get_string("general.name"); n.ok()) c.name = std::string(*n);
  TOK_ASSIGN(c.dim, hparam(f, c.arch, "embedding_length"));
  TOK_ASSIGN(c.n_layers, hparam(f, c.arch, "block_count"));
  TOK_ASSIGN(c.n_heads, hparam(f, c.arch, "attention.head_count"));
  c.n_kv_heads = c.n_heads;
  if (f.find(c.arch + ".attention.head_count_kv")) {
    TOK_ASSIGN(c.n_kv_heads, hparam(f, c.arch, "attention.head_count_kv"));
  }
  TOK_ASSIGN(c.ffn, hparam(f, c.arch, "feed_forward_length"));
  TOK_ASSIGN(c.ctx, hparam(f, c.arch, "context_length"));
  // Positions are int everywhere downstream (KV cache, forward pass).
  if (c.ctx > kMaxContext) {
    return make_error("{}: {}.context_length {} is absurd (tok allows at most {} positions)",
                      f.path(), c.arch, c.ctx, kMaxContext);
  }
  if (f.find(c.arch + ".rope.freq_base")) {
    TOK_ASSIGN(double base, f.get_float(c.arch + ".rope.freq_base"));
    // NaN or a base <= 0 makes every rotation NaN: "perplexity nan", exit 0.
    if (!(std::isfinite(base) && base > 0)) {
      return make_error("{}: {}.rope.freq_base is {}; expected a positive number", f.path(),
                        c.arch, base);
    }
    c.rope_base = static_cast<float>(base);
  }
  TOK_ASSIGN(double eps, f.get_float(c.arch + ".attention.layer_norm_rms_epsilon"));
  if (!(std::isfinite(eps) && eps >= 0 && eps < 1)) {
    return make_error("{}: {}.attention.layer_norm_rms_epsilon is {}; expected a small number "
                      "from 0 up to 1",
                      f.path(), c.arch, eps);
  }
  c.eps = static_cast<float>(eps);
  c.head_dim = c.dim / c.n_heads;
  if (c.head_dim * c.n_heads != c.dim || c.head_dim % 2 != 0 || c.n_heads % c.n_kv_heads != 0) {
    return make_error("{}: inconsistent attention shape: dim {}, {} heads, {} kv heads", f.path(),
                      c.dim, c.n_heads, c.n_kv_heads);
  }
  if (f.find(c.arch + ".rope.dimension_count")) {
    TOK_ASSIGN(std::int64_t rd, hparam(f, c.arch, "rope.dimension_count"));
    if (rd != c.head_dim) {
      return make_error("{}: partial RoPE ({} of {} dimensions) is not supported", f.path(), rd,
                        c.head_dim);
    }
  }
  c.rope_neox = c.arch == "qwen2";
  return c;
}

}  // namespace

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
  for (std::size_t i = 2; i < t->dims.size(); ++i) got_rows *= static_cast<std::int64_t>(t->dims[i]);
  if (got_rows != rows || got_cols != cols) {
    return make_error("{}: tensor {} has shape [{}, {}], expected [{}, {}]", f.path(), name, got_cols,
                      got_rows, cols, rows);
  }
  if (!ggml::is_computable(t->type)) {
    return make_error("{}: tensor {} has type {}, which tok cannot compute with ({})", f.path(), name,
                      ggml::type_name(t->type), ggml::computable_type_names());
  }
  TensorView v{static_cast<DType>(t->type), rows, cols, t->data};
  if (rows == 1 && owned && v.type != DType::kF32) {
    owned->emplace_back(static_cast<std::size_t>(cols));
    dequantize_row(v.type, v.data, owned->back().data(), cols);
    v = TensorView{DType::kF32, 1, cols, owned->back().data()};
  }
  return v;
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
    return make_error("{}: tensor token_embd.weight has {} dimensions; expected 2 (dim, vocabulary)",
                      path, embd->dims.size());
  }
  c.n_vocab = static_cast<std::int64_t>(embd->dims[1]);
  auto* own = &m.owned_;
  Weights& w = m.weights_;
  std::int64_t d = c.dim, hd = c.head_dim, q = c.n_heads * hd, kv = c.n_kv_heads * hd;
  TOK_ASSIGN(w.token_embd, tensor(f, "token_embd.weight", c.n_vocab, d, false, own));
  TOK_ASSIGN(w.output_norm, tensor(f, "output_norm.weight", 1, d, false, own));
  TOK_ASSIGN(w.output, tensor(f, "output.weight", c.n_vocab, d, true, own));
  if (w.output.empty()) w.output = w.token_embd;
  bool bias = c.arch == "qwen2";
  for (std::int64_t i = 0; i < c.n_layers; ++i) {
    std::string p = "blk." + std::to_string(i) + ".";
    LayerWeights l;
    TOK_ASSIGN(l.attn_norm, tensor(f, p + "attn_norm.weight", 1, d, false, own));
    TOK_ASSIGN(l.wq, tensor(f, p + "attn_q.weight", q, d, false, own));
    TOK_ASSIGN(l.wk, tensor(f, p + "attn_k.weight", kv, d, false, own));
    TOK_ASSIGN(l.wv, tensor(f, p + "attn_v.weight", kv, d, false, own));
    TOK_ASSIGN(l.wo, tensor(f, p + "attn_output.weight", d, q, false, own));
    TOK_ASSIGN(l.bq, tensor(f, p + "attn_q.bias", 1, q, !bias, own));
    TOK_ASSIGN(l.bk, tensor(f, p + "attn_k.bias", 1, kv, !bias, own));
    TOK_ASSIGN(l.bv, tensor(f, p + "attn_v.bias", 1, kv, !bias, own));
    TOK_ASSIGN(l.ffn_norm, tensor(f, p + "ffn_norm.weight", 1, d, false, own));
    TOK_ASSIGN(l.w_gate, tensor(f, p + "ffn_gate.weight", c.ffn, d, false, own));
    TOK_ASSIGN(l.w_up, tensor(f, p + "ffn_up.weight", c.ffn, d, false, own));
    TOK_ASSIGN(l.w_down, tensor(f, p + "ffn_down.weight", d, c.ffn, false, own));
    w.layers.push_back(l);
  }
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
    for (const TensorView* t : {&l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up, &l.w_down}) n += t->bytes();
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
    return make_error("{}: a context of {} tokens needs {} (KV cache of {} layers), more "
                      "than the {} of memory available; pass a smaller --ctx",
                      m.path(), ctx, human_bytes(need), c.n_layers, human_bytes(*avail));
  }
  return {};
}

}  // namespace tok::model
