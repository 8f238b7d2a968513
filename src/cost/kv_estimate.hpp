// KV-cache memory and attention compute for a token count, from a model's
// KV shape (catalog.hpp). Used by `tok count --kv` to tie tokens to memory.
//
// Memory: every layer caches, per token, 2 * kv_heads * head_dim values (K and
// V; MLA caches latent_dim values instead). Sliding-window layers keep at most
// `window` tokens. Tokens are rounded up to whole pages of block_tokens (16, as
// vLLM's paged attention does). f16 is 2 bytes per value; q8_0 and q4_0 are
// llama.cpp's block formats: 32 values in 34 and 18 bytes.
// Compute: attention score and value products of one causal forward pass
// over the whole sequence (2 * (qk_dim + v_dim) FLOPs per query-key pair per
// query head); projections and MLPs are not included.
#pragma once

#include <cstdint>

#include "cost/catalog.hpp"

namespace tok::cost {

struct KvEstimate {
  std::uint64_t tokens = 0;
  std::uint64_t paged_tokens = 0;      // tokens rounded up to whole blocks
  std::uint64_t values_per_token = 0;  // per layer (K + V, or MLA latent)
  std::uint64_t bytes_f16 = 0;
  std::uint64_t bytes_q8_0 = 0;
  std::uint64_t bytes_q4_0 = 0;
  double attention_flops = 0;
};

inline constexpr std::uint64_t kDefaultBlockTokens = 16;

KvEstimate estimate_kv(const KvShape& shape, std::uint64_t tokens,
                       std::uint64_t block_tokens = kDefaultBlockTokens);

// Query-key pairs of a causal pass over n tokens, each query seeing at most
// `window` keys (0 = unlimited).
double causal_pairs(std::uint64_t n, std::uint64_t window);

}  // namespace tok::cost
