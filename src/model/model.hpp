// Model: a decoder-only transformer opened from a GGUF file (mmap'd; weights
// are views into the mapping). The architectures tok runs (llama, smollm3,
// qwen2, qwen3, gemma3, phi3) are one pre-norm block with per-family
// switches, read from the file's metadata by model/model_config.cpp: see
// ModelConfig. Each is checked against llama.cpp's graph for that arch.
// The tokenizer comes from the same file through formats::load_tokenizer, so
// `tok generate -m F` and `tok encode -e F` give the same ids.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bpe/tokenizer.hpp"
#include "core/result.hpp"
#include "model/tensor.hpp"

namespace tok::formats {
class GgufFile;
}

namespace tok::model {

// Most positions a context may have: positions are int in the KV cache and
// the forward pass.
inline constexpr std::int64_t kMaxContext = 2147483647;

struct ModelConfig {
  std::string arch;  // general.architecture: one of kArchitectures
  std::string name;  // general.name (may be empty)
  std::int64_t n_vocab = 0;
  std::int64_t dim = 0;  // embedding length
  std::int64_t n_layers = 0;
  std::int64_t n_heads = 0;
  std::int64_t n_kv_heads = 0;
  std::int64_t head_dim = 0;  // attention.key_length, else dim / n_heads
  std::int64_t ffn = 0;       // feed-forward hidden size
  std::int64_t ctx = 0;       // trained context length
  float eps = 1e-5f;
  // RoPE: the first n_rot dimensions of each head are rotated (phi3 may
  // rotate fewer than head_dim), by pos * freq_scale * base^(-2i/n_rot) /
  // factor[i] (factors: rope_freqs / rope_factors_* tensors, Llama 3.1 and
  // LongRoPE), and multiplied by rope_attn_factor (phi3's LongRoPE).
  float rope_base = 10000.0f;
  float rope_freq_scale = 1.0f;  // 1 / rope.scaling.factor (linear scaling)
  float rope_attn_factor = 1.0f;
  std::int64_t n_rot = 0;
  bool rope_neox = false;          // rotate (x[i], x[i + n_rot/2]): qwen2/3, gemma3, phi3
  std::int64_t rope_orig_ctx = 0;  // phi3: contexts beyond this use the long factors
  // Sliding-window attention (gemma3): a layer l with (l % swa_pattern) <
  // swa_pattern - 1 sees only the last swa_window positions and rotates
  // with base rope_base_swa and no scaling; the others are global.
  std::int64_t swa_window = 0;  // 0: every layer global
  std::int64_t swa_pattern = 0;
  float rope_base_swa = 10000.0f;
  std::int64_t no_rope_every = 0;  // smollm3: layers l with (l + 1) % this == 0 skip RoPE
  float attn_scale = 0;            // score = q.k * attn_scale (1/sqrt(head_dim) unless set)
  float embed_scale = 1.0f;        // gemma3: embeddings times sqrt(dim)
  bool gelu = false;               // FFN gate: GELU (tanh form; gemma3) instead of SiLU

  bool is_swa(std::int64_t l) const {
    return swa_window > 0 && swa_pattern > 0 && l % swa_pattern < swa_pattern - 1;
  }
  bool uses_rope(std::int64_t l) const {
    return no_rope_every == 0 || (l + 1) % no_rope_every != 0;
  }
};

// The architectures tok runs, as general.architecture names them.
inline constexpr const char* kArchitectures = "llama, smollm3, qwen2, qwen3, gemma3, phi3";

struct LayerWeights {
  TensorView attn_norm;       // (dim) F32
  TensorView wq, wk, wv, wo;  // (heads*hd, dim) (kv*hd, dim) (kv*hd, dim) (dim, heads*hd); phi3:
                              // row ranges of attn_qkv
  TensorView bq, bk, bv;      // F32 biases (qwen2, optional elsewhere); empty when absent
  TensorView q_norm,
      k_norm;  // (hd) F32 per-head RMSNorm of q and k (qwen3, gemma3); empty when absent
  TensorView post_attn_norm;  // (dim) F32 norm of the attention output (gemma3); empty when absent
  TensorView ffn_norm;        // (dim) F32
  TensorView w_gate, w_up,
      w_down;  // (ffn, dim) (ffn, dim) (dim, ffn); phi3: gate and up are halves of ffn_up
  TensorView post_ffn_norm;  // (dim) F32 norm of the FFN output (gemma3); empty when absent
};

struct Weights {
  TensorView token_embd;  // (n_vocab, dim)
  std::vector<LayerWeights> layers;
  TensorView output_norm;  // (dim) F32
  TensorView output;       // (n_vocab, dim); token_embd when tied
  TensorView
      rope_freqs;  // (n_rot/2) F32 frequency divisors (Llama 3.1 rope scaling); empty when absent
  TensorView rope_short, rope_long;  // (n_rot/2) F32 phi3 LongRoPE divisors; empty when absent
};

class Model {
 public:
  // with_tokenizer = false skips the tokenizer (logit tests, benchmarks of
  // files whose vocabulary tok cannot load).
  static Result<Model> load(const std::string& path, bool with_tokenizer = true);
  Model(Model&&) noexcept;
  Model& operator=(Model&&) noexcept;
  ~Model();

  const ModelConfig& config() const { return config_; }
  const Weights& weights() const { return weights_; }
  const bpe::Tokenizer& tokenizer() const { return tokenizer_; }
  const formats::GgufFile& file() const { return *file_; }
  const std::string& path() const { return path_; }
  // Size of the model file in bytes.
  std::uint64_t file_bytes() const;
  // Bytes of weights read per decoded token (all matrices + the output).
  std::uint64_t weight_bytes() const;

 private:
  Model();
  std::string path_;
  std::unique_ptr<formats::GgufFile> file_;
  ModelConfig config_;
  Weights weights_;
  bpe::Tokenizer tokenizer_;
  std::vector<std::vector<float>> owned_;  // norms/biases stored as F16/BF16, widened to F32
};

// Bytes a run with a context of ctx positions allocates beyond the mapped
// weights: the KV cache (f32 keys and values, every layer) and the forward
// pass's scratch and logits.
std::uint64_t run_memory_bytes(const ModelConfig& c, std::int64_t ctx);
// Refuses (before anything is allocated) a context that the model does not
// support or whose run_memory_bytes exceed the memory available.
Status check_run_memory(const Model& m, std::int64_t ctx);

}  // namespace tok::model
