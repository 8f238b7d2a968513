#include <doctest/doctest.h>

#include "cost/kv_estimate.hpp"

using namespace tok::cost;

TEST_CASE("GQA: Llama 3.1 8B at 1000 tokens") {
  KvShape s;
  s.layers = 32, s.heads = 32, s.kv_heads = 8, s.head_dim = 128, s.qk_head_dim = 128,
  s.v_head_dim = 128;
  KvEstimate e = estimate_kv(s, 1000);
  CHECK(e.paged_tokens == 1008);  // 63 pages of 16
  CHECK(e.values_per_token == 2048);
  CHECK(e.bytes_f16 == 32ull * 1008 * 2048 * 2);  // 132,120,576 bytes = 126 MiB
  CHECK(e.bytes_q8_0 == 32ull * 1008 * 64 * 34);
  CHECK(e.bytes_q4_0 == 32ull * 1008 * 64 * 18);
  // 32 layers x 32 heads x 2*(128+128) FLOPs x 1000*1001/2 pairs.
  CHECK(e.attention_flops == doctest::Approx(32.0 * 32 * 512 * 500500));
}

TEST_CASE("MLA caches the latent; sliding layers cap at the window") {
  KvShape mla;
  mla.layers = 61, mla.heads = 128, mla.attention = Attention::kMla, mla.latent_dim = 576;
  mla.qk_head_dim = 192, mla.v_head_dim = 128;
  CHECK(estimate_kv(mla, 16).bytes_f16 == 61ull * 16 * 576 * 2);
  KvShape sw;
  sw.layers = 62, sw.heads = 32, sw.kv_heads = 16, sw.head_dim = 128, sw.qk_head_dim = 128;
  sw.v_head_dim = 128, sw.attention = Attention::kSliding, sw.window = 1024, sw.sliding_layers = 52;
  KvEstimate e = estimate_kv(sw, 100000);
  CHECK(e.bytes_f16 == (10ull * 100000 + 52ull * 1024) * 4096 * 2);
  CHECK(causal_pairs(10, 0) == 55);
  CHECK(causal_pairs(10, 4) == 10 + 6 * 4);
  CHECK(estimate_kv(sw, 0).bytes_f16 == 0);
}
