#include "cost/kv_estimate.hpp"

#include <algorithm>

namespace tok::cost {

namespace {
std::uint64_t round_up(std::uint64_t n, std::uint64_t block) {
  return block == 0 ? n : (n + block - 1) / block * block;
}
std::uint64_t blocks32(std::uint64_t values) { return (values + 31) / 32; }
}  // namespace

double causal_pairs(std::uint64_t n, std::uint64_t window) {
  double dn = static_cast<double>(n);
  if (window == 0 || n <= window) return dn * (dn + 1) / 2;
  double w = static_cast<double>(window);
  return w * (w + 1) / 2 + (dn - w) * w;
}

KvEstimate estimate_kv(const KvShape& s, std::uint64_t tokens, std::uint64_t block_tokens) {
  KvEstimate e;
  e.tokens = tokens;
  e.paged_tokens = round_up(tokens, block_tokens);
  e.values_per_token =
      s.attention == Attention::kMla ? s.latent_dim : 2ull * s.kv_heads * s.head_dim;
  std::uint64_t sliding = s.attention == Attention::kSliding ? s.sliding_layers : 0;
  std::uint64_t global = s.layers - sliding;
  std::uint64_t window_tokens = round_up(std::min<std::uint64_t>(tokens, s.window), block_tokens);
  // Token-layer slots held in the cache.
  std::uint64_t slots = global * e.paged_tokens + sliding * window_tokens;
  e.bytes_f16 = slots * e.values_per_token * 2;
  e.bytes_q8_0 = slots * blocks32(e.values_per_token) * 34;
  e.bytes_q4_0 = slots * blocks32(e.values_per_token) * 18;
  double per_pair = 2.0 * (s.qk_head_dim + s.v_head_dim) * s.heads;
  e.attention_flops = per_pair * (static_cast<double>(global) * causal_pairs(tokens, 0) +
                                  static_cast<double>(sliding) * causal_pairs(tokens, s.window));
  return e;
}

}  // namespace tok::cost
