#include "model/model_config.hpp"

#include <cmath>
#include <string_view>

#include "formats/gguf.hpp"

namespace tok::model {
namespace {

// Reads an integer hyperparameter "ARCH.key".
Result<std::int64_t> hparam(const formats::GgufFile& f, const std::string& arch, const char* key) {
  TOK_ASSIGN(std::uint32_t v, f.get_u32(arch + "." + key));
  if (v == 0) return make_error("{}: {}.{} is 0", f.path(), arch, key);
  return static_cast<std::int64_t>(v);
}

// Reads an optional positive float "ARCH.key"; absent leaves `out` as it is.
// NaN or a value <= 0 would make every rotation or score NaN ("perplexity
// nan", exit 0), so it is refused.
Status positive(const formats::GgufFile& f, const std::string& arch, const char* key, float& out) {
  if (!f.find(arch + "." + key)) return {};
  TOK_ASSIGN(double v, f.get_float(arch + "." + key));
  if (!(std::isfinite(v) && v > 0)) {
    return make_error("{}: {}.{} is {}; expected a positive number", f.path(), arch, key, v);
  }
  out = static_cast<float>(v);
  return {};
}

Status read_shape(const formats::GgufFile& f, ModelConfig& c) {
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
  // Qwen3 and Gemma 3 heads are wider than dim / heads: key_length says so.
  c.head_dim = c.dim / c.n_heads;
  bool exact = c.head_dim * c.n_heads == c.dim;
  if (f.find(c.arch + ".attention.key_length")) {
    TOK_ASSIGN(c.head_dim, hparam(f, c.arch, "attention.key_length"));
    exact = true;
  }
  if (f.find(c.arch + ".attention.value_length")) {
    TOK_ASSIGN(std::int64_t v, hparam(f, c.arch, "attention.value_length"));
    if (v != c.head_dim) {
      return make_error("{}: value heads of {} differ from key heads of {}, which tok does not run",
                        f.path(), v, c.head_dim);
    }
  }
  if (!exact || c.head_dim % 2 != 0 || c.n_heads % c.n_kv_heads != 0) {
    return make_error("{}: inconsistent attention shape: dim {}, {} heads of {}, {} kv heads",
                      f.path(), c.dim, c.n_heads, c.head_dim, c.n_kv_heads);
  }
  TOK_ASSIGN(double eps, f.get_float(c.arch + ".attention.layer_norm_rms_epsilon"));
  if (!(std::isfinite(eps) && eps >= 0 && eps < 1)) {
    return make_error(
        "{}: {}.attention.layer_norm_rms_epsilon is {}; expected a small number "
        "from 0 up to 1",
        f.path(), c.arch, eps);
  }
  c.eps = static_cast<float>(eps);
  return {};
}

Status read_rope(const formats::GgufFile& f, ModelConfig& c) {
  TOK_TRY(positive(f, c.arch, "rope.freq_base", c.rope_base));
  c.n_rot = c.head_dim;
  if (f.find(c.arch + ".rope.dimension_count")) {
    TOK_ASSIGN(c.n_rot, hparam(f, c.arch, "rope.dimension_count"));
    if (c.n_rot > c.head_dim || c.n_rot % 2 != 0) {
      return make_error(
          "{}: {}.rope.dimension_count {} does not fit heads of {} (expected an even "
          "number up to that)",
          f.path(), c.arch, c.n_rot, c.head_dim);
    }
  }
  std::string type = "linear";
  if (f.find(c.arch + ".rope.scaling.type")) {
    TOK_ASSIGN(std::string_view t, f.get_string(c.arch + ".rope.scaling.type"));
    type = std::string(t);
  }
  if (type != "none" && type != "linear" && type != "longrope") {
    return make_error(
        "{}: {}.rope.scaling.type '{}' is not supported (tok runs none, linear and "
        "longrope)",
        f.path(), c.arch, type);
  }
  // As llama.cpp: the factor divides positions, and type none never scales.
  float factor = 1.0f;
  TOK_TRY(positive(f, c.arch, "rope.scale_linear", factor));
  TOK_TRY(positive(f, c.arch, "rope.scaling.factor", factor));
  c.rope_freq_scale = type == "none" ? 1.0f : 1.0f / factor;
  TOK_TRY(positive(f, c.arch, "rope.scaling.attn_factor", c.rope_attn_factor));
  c.rope_orig_ctx = c.ctx;
  if (f.find(c.arch + ".rope.scaling.original_context_length")) {
    TOK_ASSIGN(c.rope_orig_ctx, hparam(f, c.arch, "rope.scaling.original_context_length"));
  }
  return {};
}

// What each architecture changes in the llama block (llama.cpp's
// load_hparams and graph for it).
Status read_family(const formats::GgufFile& f, ModelConfig& c) {
  c.rope_neox = c.arch != "llama" && c.arch != "smollm3";
  c.attn_scale = 1.0f / std::sqrt(static_cast<float>(c.head_dim));
  if (c.arch == "smollm3") c.no_rope_every = 4;  // fixed in llama.cpp, not in the file
  // phi3.attention.sliding_window is ignored: llama.cpp disables Phi's
  // sliding window (its converter records a wrong one), and tok runs what
  // llama.cpp runs.
  if (c.arch != "gemma3") return {};
  TOK_ASSIGN(c.swa_window, hparam(f, c.arch, "attention.sliding_window"));
  c.swa_pattern = 6;  // five local layers, then a global one
  c.rope_base_swa = 10000.0f;
  c.embed_scale = std::sqrt(static_cast<float>(c.dim));
  c.gelu = true;
  // final_logit_softcapping is Gemma 2's: Gemma 3's configuration has none
  // and llama.cpp's sliding-window Gemma 3 graph applies none.
  // Gemma 3 27B (62 layers) scales by its query_pre_attn_scalar, dim / heads.
  if (c.n_layers == 62) c.attn_scale = 1.0f / std::sqrt(static_cast<float>(c.dim / c.n_heads));
  return {};
}

}  // namespace

Result<ModelConfig> read_config(const formats::GgufFile& f) {
  ModelConfig c;
  TOK_ASSIGN(std::string_view arch, f.get_string("general.architecture"));
  c.arch = std::string(arch);
  bool known = false;
  for (std::string_view a : {"llama", "smollm3", "qwen2", "qwen3", "gemma3", "phi3"})
    known |= a == arch;
  if (!known) {
    return make_error("{}: architecture '{}' is not supported (tok runs {})", f.path(), c.arch,
                      kArchitectures);
  }
  if (auto n = f.get_string("general.name"); n.ok()) c.name = std::string(*n);
  TOK_TRY(read_shape(f, c));
  TOK_TRY(read_rope(f, c));
  TOK_TRY(read_family(f, c));
  return c;
}

}  // namespace tok::model
