// Model: a llama-family transformer opened from a GGUF file (mmap'd; weights
// are views into the mapping). Supports arch `llama` (RMSNorm, RoPE on
// adjacent pairs with the file's freq base, GQA, SwiGLU, tied or separate
// output) and `qwen2` (the same with Q/K/V biases and NeoX-style RoPE).
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
  std::string arch;      // "llama" or "qwen2"
  std::string name;      // general.name (may be empty)
  std::int64_t n_vocab = 0;
  std::int64_t dim = 0;       // embedding length
  std::int64_t n_layers = 0;
  std::int64_t n_heads = 0;
  std::int64_t n_kv_heads = 0;
  std::int64_t head_dim = 0;
  std::int64_t ffn = 0;       // feed-forward hidden size
  std::int64_t ctx = 0;       // trained context length
  float rope_base = 10000.0f;
  float eps = 1e-5f;
  bool rope_neox = false;     // qwen2: rotate (x[i], x[i + d/2])
};

struct LayerWeights {
  TensorView attn_norm;              // (dim) F32
  TensorView wq, wk, wv, wo;         // (heads*hd, dim) (kv*hd, dim) (kv*hd, dim) (dim, heads*hd)
  TensorView bq, bk, bv;             // qwen2 biases, F32; empty for llama
  TensorView ffn_norm;               // (dim) F32
  TensorView w_gate, w_up, w_down;   // (ffn, dim) (ffn, dim) (dim, ffn)
};

struct Weights {
  TensorView token_embd;   // (n_vocab, dim)
  std::vector<LayerWeights> layers;
  TensorView output_norm;  // (dim) F32
  TensorView output;       // (n_vocab, dim); token_embd when tied
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
