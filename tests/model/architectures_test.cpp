// Every architecture tok runs, on tiny random-weight GGUFs written here (the
// exactness checks against llama.cpp and PyTorch are
// tests/cli/generate_archs_full.sh): the metadata sets the family's switches,
// fused tensors split into the right rows, a prompt evaluated at once gives
// the logits of the same tokens one at a time, and a paged cache that keeps
// keys unrotated (attention rotates them as it reads: eviction policies)
// gives the contiguous cache's logits, for every RoPE variant.
#include <doctest/doctest.h>

#include <unistd.h>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "formats/gguf_writer.hpp"
#include "model/forward.hpp"
#include "model/paged_kv_adapter.hpp"

using namespace tok::model;
using tok::ThreadPool;
using tok::bpe::TokenId;
using GgmlType = tok::ggml::Type;

namespace {

constexpr int kVocab = 64, kCtx = 64;

struct Family {
  std::string arch;
  int dim, layers, heads, kv_heads, head_dim, ffn, n_rot;
};

const Family kFamilies[] = {
    {"llama", 32, 2, 4, 2, 8, 64, 8},    {"smollm3", 32, 4, 4, 2, 8, 64, 8},
    {"qwen2", 32, 2, 4, 2, 8, 64, 8},    {"qwen3", 32, 2, 4, 2, 16, 64, 16},
    {"gemma3", 32, 6, 4, 1, 16, 64, 16}, {"phi3", 48, 2, 6, 2, 8, 64, 6},
};

// Deterministic values of deviation about `scale` (no <random>: the same
// file on every platform).
std::string random_f32(std::size_t n, float scale, float offset, std::uint32_t& state) {
  std::string out(n * 4, '\0');
  for (std::size_t i = 0; i < n; ++i) {
    state = state * 1664525u + 1013904223u;
    float v = offset + scale * (static_cast<float>(state >> 8) / 8388608.0f - 1.0f) * 1.7f;
    std::memcpy(out.data() + i * 4, &v, 4);
  }
  return out;
}

std::string write_model(const Family& f, const std::string& name) {
  tok::formats::GgufWriter w;
  const std::string& a = f.arch;
  w.set_string("general.architecture", a);
  for (auto [k, v] : {std::pair<const char*, int>{"context_length", kCtx},
                      {"embedding_length", f.dim},
                      {"block_count", f.layers},
                      {"feed_forward_length", f.ffn},
                      {"attention.head_count", f.heads},
                      {"attention.head_count_kv", f.kv_heads},
                      {"attention.key_length", f.head_dim},
                      {"rope.dimension_count", f.n_rot}}) {
    w.set_u32(a + "." + k, static_cast<std::uint32_t>(v));
  }
  w.set_f32(a + ".rope.freq_base", 1000.0f);
  w.set_f32(a + ".attention.layer_norm_rms_epsilon", 1e-6f);
  if (a == "gemma3") w.set_u32(a + ".attention.sliding_window", 5);
  if (a == "phi3") {
    w.set_f32(a + ".rope.scaling.attn_factor", 1.2f);
    w.set_u32(a + ".rope.scaling.original_context_length", 32);
  }
  std::uint32_t s = 7;
  auto add = [&](const std::string& n, std::uint64_t cols, std::uint64_t rows, float scale,
                 float offset = 0) {
    std::vector<std::uint64_t> dims = {cols};
    if (rows) dims.push_back(rows);
    std::size_t count = cols * (rows ? rows : 1);
    REQUIRE(w.add_tensor(n, GgmlType::kF32, dims, random_f32(count, scale, offset, s)).ok());
  };
  std::uint64_t d = f.dim, q = f.heads * f.head_dim, kv = f.kv_heads * f.head_dim;
  float sd = 1.0f / std::sqrt(static_cast<float>(d));
  add("token_embd.weight", d, kVocab, 2 * sd);
  if (a == "llama") add("rope_freqs.weight", f.n_rot / 2, 0, 0.5f, 2.0f);
  if (a == "phi3") {
    add("rope_factors_short.weight", f.n_rot / 2, 0, 0.2f, 1.5f);
    add("rope_factors_long.weight", f.n_rot / 2, 0, 1.0f, 4.0f);
  }
  for (int i = 0; i < f.layers; ++i) {
    std::string p = "blk." + std::to_string(i) + ".";
    add(p + "attn_norm.weight", d, 0, 0.1f, 1.0f);
    if (a == "phi3") {
      add(p + "attn_qkv.weight", d, q + 2 * kv, sd);
    } else {
      add(p + "attn_q.weight", d, q, sd);
      add(p + "attn_k.weight", d, kv, sd);
      add(p + "attn_v.weight", d, kv, sd);
    }
    if (a == "qwen2") {
      add(p + "attn_q.bias", q, 0, 0.3f);
      add(p + "attn_k.bias", kv, 0, 0.3f);
      add(p + "attn_v.bias", kv, 0, 0.3f);
    }
    if (a == "qwen3" || a == "gemma3") {
      add(p + "attn_q_norm.weight", f.head_dim, 0, 0.1f, 1.0f);
      add(p + "attn_k_norm.weight", f.head_dim, 0, 0.1f, 1.0f);
    }
    add(p + "attn_output.weight", q, d, sd);
    if (a == "gemma3") add(p + "post_attention_norm.weight", d, 0, 0.1f, 1.0f);
    add(p + "ffn_norm.weight", d, 0, 0.1f, 1.0f);
    if (a == "phi3") {
      add(p + "ffn_up.weight", d, 2 * f.ffn, sd);
    } else {
      add(p + "ffn_gate.weight", d, f.ffn, sd);
      add(p + "ffn_up.weight", d, f.ffn, sd);
    }
    add(p + "ffn_down.weight", f.ffn, d, 1.0f / std::sqrt(static_cast<float>(f.ffn)));
    if (a == "gemma3") add(p + "post_ffw_norm.weight", d, 0, 0.1f, 1.0f);
  }
  add("output_norm.weight", d, 0, 0.1f, 1.0f);
  std::string path = (std::filesystem::temp_directory_path() /
                      ("tok-arch-" + name + "-" + std::to_string(getpid()) + ".gguf"))
                         .string();
  REQUIRE(w.write(path).ok());
  return path;
}

struct TempModel {
  explicit TempModel(const Family& f, const std::string& tag = "")
      : path(write_model(f, f.arch + tag)) {}
  ~TempModel() { std::filesystem::remove(path); }
  std::string path;
};

std::vector<TokenId> prompt(int n) {
  std::vector<TokenId> ids;
  for (int i = 0; i < n; ++i) ids.push_back(static_cast<TokenId>((i * 37 + 11) % kVocab));
  return ids;
}

double max_abs_diff(std::span<const float> a, std::span<const float> b) {
  double d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, std::fabs(double(a[i]) - b[i]));
  return d;
}

}  // namespace

TEST_CASE("each architecture's metadata sets its switches") {
  for (const Family& f : kFamilies) {
    CAPTURE(f.arch);
    TempModel t(f);
    auto m = Model::load(t.path, false);
    REQUIRE(m.ok());
    const ModelConfig& c = m->config();
    CHECK(c.head_dim == f.head_dim);
    CHECK(c.n_rot == f.n_rot);
    CHECK(c.rope_neox == (f.arch != "llama" && f.arch != "smollm3"));
    CHECK(c.attn_scale == doctest::Approx(1.0 / std::sqrt(f.head_dim)));
    const LayerWeights& l = m->weights().layers[0];
    CHECK(l.q_norm.empty() == (f.arch != "qwen3" && f.arch != "gemma3"));
    CHECK(l.post_ffn_norm.empty() == (f.arch != "gemma3"));
    CHECK(l.bq.empty() == (f.arch != "qwen2"));
    CHECK(m->weights().output.data == m->weights().token_embd.data);  // tied
    if (f.arch == "gemma3") {
      for (int i = 0; i < 6; ++i) CHECK(c.is_swa(i) == (i != 5));
      CHECK(c.swa_window == 5);
      CHECK(c.embed_scale == doctest::Approx(std::sqrt(32.0)));
      CHECK(c.gelu);
    } else {
      CHECK_FALSE(c.is_swa(0));
    }
    if (f.arch == "smollm3") {
      for (int i = 0; i < 4; ++i) CHECK(c.uses_rope(i) == (i != 3));
    }
    if (f.arch == "phi3") {
      // q, k, v and gate, up are consecutive rows of the fused tensors.
      std::size_t row = l.wq.row_bytes();
      CHECK(l.wk.row(0) == l.wq.row(0) + row * f.heads * f.head_dim);
      CHECK(l.wv.row(0) == l.wk.row(0) + row * f.kv_heads * f.head_dim);
      CHECK(l.w_up.row(0) == l.w_gate.row(0) + l.w_gate.row_bytes() * f.ffn);
      CHECK(c.rope_attn_factor == doctest::Approx(1.2));
      CHECK(c.rope_orig_ctx == 32);
    }
  }
}

TEST_CASE(
    "each architecture: prefill equals one token at a time, unrotated keys equal rotated ones") {
  std::vector<TokenId> ids = prompt(24);
  for (const Family& f : kFamilies) {
    CAPTURE(f.arch);
    TempModel t(f);
    auto m = Model::load(t.path, false);
    REQUIRE(m.ok());
    ThreadPool pool(1);
    Forward fwd(*m, pool);
    ContiguousKvCache flat(fwd.kv_shape(kCtx));
    auto all = fwd.eval(ids, flat, true);
    REQUIRE(all.ok());
    std::vector<float> want(all->begin(), all->end());
    double biggest = 0;
    for (float v : want) biggest = std::max(biggest, std::fabs(double(v)));
    CHECK(biggest > 0.5);  // not a degenerate model
    // One token at a time through a fresh cache.
    ContiguousKvCache flat2(fwd.kv_shape(kCtx));
    double worst = 0;
    for (std::size_t i = 0; i < ids.size(); ++i) {
      auto one = fwd.eval(std::span<const TokenId>(&ids[i], 1), flat2);
      REQUIRE(one.ok());
      worst = std::max(
          worst, max_abs_diff(*one, std::span<const float>(want).subspan(i * kVocab, kVocab)));
    }
    CHECK(worst < 1e-4 * biggest);
    // Keys stored before RoPE, rotated by attention as it reads them.
    tok::kv::KvConfig kc;
    kc.layers = f.layers;
    kc.kv_heads = f.kv_heads;
    kc.head_dim = f.head_dim;
    kc.block_tokens = 8;
    kc.context = kCtx;
    auto pc = tok::kv::PagedKvCache::create(kc);
    REQUIRE(pc.ok());
    PagedKvAdapter paged(*pc, fwd.kv_shape(kCtx));
    paged.set_keys_before_rope(true);
    auto got = fwd.eval(ids, paged, true);
    REQUIRE(got.ok());
    CHECK(max_abs_diff(*got, want) < 1e-4 * biggest);
  }
}

TEST_CASE("phi3 switches to its long RoPE factors past the original context") {
  TempModel t(kFamilies[5], "-long");
  auto m = Model::load(t.path, false);
  REQUIRE(m.ok());
  ThreadPool pool(1);
  Forward fwd(*m, pool);
  std::vector<TokenId> ids = prompt(12);
  ContiguousKvCache short_ctx(fwd.kv_shape(32)), long_ctx(fwd.kv_shape(kCtx));
  auto a = fwd.eval(ids, short_ctx);
  REQUIRE(a.ok());
  std::vector<float> first(a->begin(), a->end());
  auto b = fwd.eval(ids, long_ctx);
  REQUIRE(b.ok());
  CHECK(max_abs_diff(first, *b) > 1e-3);
}
