#include "kv/paged_cache.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <random>
#include <set>
#include <vector>

using namespace tok::kv;
using tok::Status;

namespace {

// Layers 2, row 32 floats (2 heads x 16), 4-token blocks: small enough to
// cross block boundaries often.
KvConfig small_config(KvType type = KvType::kF32, const char* policy = "full") {
  KvConfig c;
  c.layers = 2;
  c.kv_heads = 2;
  c.head_dim = 16;
  c.block_tokens = 4;
  c.type = type;
  c.context = 100;
  c.policy = parse_eviction_policy(policy).value();
  return c;
}

// Row contents of token `tag`: small multiples of 1/8, exact in f16.
std::vector<float> row_of(int tag, int layer, bool value, int n) {
  std::vector<float> r(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i)
    r[static_cast<std::size_t>(i)] =
        static_cast<float>((tag * 31 + layer * 7 + i * 3 + (value ? 5 : 0)) % 97) / 8.0f - 6.0f;
  return r;
}

void append_tag(PagedKvCache& cache, SeqId s, int tag, int orig_pos) {
  REQUIRE(cache.append_token(s, orig_pos).ok());
  int slot = cache.length(s) - 1;
  for (int l = 0; l < cache.config().layers; ++l) {
    auto k = row_of(tag, l, false, cache.config().row());
    auto v = row_of(tag, l, true, cache.config().row());
    REQUIRE(cache.write(s, l, slot, k.data(), v.data()).ok());
  }
}

bool slot_holds(const PagedKvCache& cache, SeqId s, int slot, int tag) {
  int n = cache.config().row();
  std::vector<float> buf(static_cast<std::size_t>(n));
  for (int l = 0; l < cache.config().layers; ++l) {
    auto k = row_of(tag, l, false, n), v = row_of(tag, l, true, n);
    const float* kp = cache.key(s, l, slot, buf.data());
    if (!std::equal(k.begin(), k.end(), kp)) return false;
    const float* vp = cache.value(s, l, slot, buf.data());
    if (!std::equal(v.begin(), v.end(), vp)) return false;
  }
  return true;
}

// Every block's refcount equals its occurrences in the block tables; the
// pool's counts add up.
void check_pool(const PagedKvCache& cache, const std::vector<SeqId>& live) {
  std::map<BlockId, int> refs;
  for (SeqId s : live)
    for (BlockId b : cache.block_table(s)) ++refs[b];
  const BlockPool& pool = cache.pool();
  for (std::size_t b = 0; b < pool.created(); ++b) {
    auto it = refs.find(static_cast<BlockId>(b));
    REQUIRE(pool.refcount(static_cast<BlockId>(b)) == (it == refs.end() ? 0 : it->second));
    REQUIRE(pool.refcount(static_cast<BlockId>(b)) >= 0);
  }
  REQUIRE(pool.in_use() == refs.size());
  REQUIRE(pool.in_use() + pool.free_listed() == pool.created());
}

}  // namespace

TEST_CASE("paged cache: blocks are allocated as tokens arrive, reads are exact") {
  auto cache = PagedKvCache::create(small_config()).value();
  SeqId s = cache.new_sequence();
  CHECK(cache.pool().created() == 0);
  for (int t = 0; t < 9; ++t) {
    append_tag(cache, s, t, t);
    CHECK(cache.block_table(s).size() == static_cast<std::size_t>(t / 4 + 1));
  }
  CHECK(cache.length(s) == 9);
  for (int t = 0; t < 9; ++t) CHECK(slot_holds(cache, s, t, t));
  // f32 reads point into the block: no copy.
  std::vector<float> buf(32);
  CHECK(cache.key(s, 1, 3, buf.data()) != buf.data());
  cache.free(s);
  CHECK(cache.pool().in_use() == 0);
  CHECK(cache.pool().free_listed() == 3);
}

TEST_CASE("paged cache: fork shares blocks, copy-on-write on the partly filled block") {
  auto cache = PagedKvCache::create(small_config()).value();
  SeqId a = cache.new_sequence();
  for (int t = 0; t < 6; ++t) append_tag(cache, a, t, t);  // blocks: full, 2/4
  SeqId b = cache.fork(a);
  CHECK(cache.pool().in_use() == 2);
  for (BlockId blk : cache.block_table(a)) CHECK(cache.pool().refcount(blk) == 2);
  CHECK(cache.blocks_needed(b, 1) == 1);  // the copy of the shared last block
  CHECK(cache.blocks_needed(b, 3) == 2);
  append_tag(cache, b, 100, 6);
  CHECK(cache.pool().in_use() == 3);
  CHECK(cache.block_table(a)[0] == cache.block_table(b)[0]);
  CHECK(cache.block_table(a)[1] != cache.block_table(b)[1]);
  CHECK(cache.pool().refcount(cache.block_table(b)[1]) == 1);
  CHECK(cache.pool().refcount(cache.block_table(a)[1]) == 1);
  // Both still read the shared prefix as before; only b has token 100.
  for (int t = 0; t < 6; ++t) {
    CHECK(slot_holds(cache, a, t, t));
    CHECK(slot_holds(cache, b, t, t));
  }
  CHECK(slot_holds(cache, b, 6, 100));
  // a appends in place now that it owns its block.
  append_tag(cache, a, 200, 6);
  CHECK(cache.pool().in_use() == 3);
  CHECK(slot_holds(cache, a, 6, 200));
  CHECK(slot_holds(cache, b, 6, 100));
  cache.free(a);
  CHECK(cache.pool().refcount(cache.block_table(b)[0]) == 1);
  cache.free(b);
  CHECK(cache.pool().in_use() == 0);
  CHECK(cache.pool().free_listed() == cache.pool().created());
}

TEST_CASE("paged cache: a fork at a block boundary shares everything and copies nothing") {
  auto cache = PagedKvCache::create(small_config()).value();
  SeqId a = cache.new_sequence();
  for (int t = 0; t < 8; ++t) append_tag(cache, a, t, t);
  SeqId b = cache.fork(a);
  append_tag(cache, b, 50, 8);
  append_tag(cache, a, 60, 8);
  CHECK(cache.pool().in_use() == 4);  // 2 shared + 1 new each
  auto st = cache.stats();
  CHECK(st.shared_blocks == 2);
  CHECK(st.bytes_saved == 2 * cache.pool().block_bytes());
}

TEST_CASE("paged cache: byte budget reports no free block and changes nothing") {
  KvConfig c = small_config();
  std::size_t block_bytes = 2 * 2 * 4 * 128;  // K+V, layers, tokens, row bytes
  c.budget_bytes = 3 * block_bytes + 100;
  auto cache = PagedKvCache::create(c).value();
  CHECK(cache.pool().max_blocks() == 3);
  SeqId a = cache.new_sequence();
  for (int t = 0; t < 12; ++t) append_tag(cache, a, t, t);
  SeqId b = cache.new_sequence();
  CHECK(cache.pool().available() == 0);
  Status st = cache.append_token(b, 0);
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().message ==
        "KV cache: no free block (budget 6.00 KiB = 3 blocks of 2048 bytes, all in use)");
  CHECK(cache.length(b) == 0);
  // A fork shares, so it costs nothing until it writes into a shared partial block.
  SeqId f = cache.fork(a);
  CHECK(cache.blocks_needed(f, 1) == 1);
  CHECK_FALSE(cache.append_token(f, 12).ok());
  cache.free(f);
  cache.free(a);
  CHECK(cache.append_token(b, 0).ok());
  auto tiny = small_config();
  tiny.budget_bytes = 1000;
  CHECK(PagedKvCache::create(tiny).error().message ==
        "KV budget 1000 B (1000 bytes) is smaller than one block (2048 bytes = 4 tokens of 512 "
        "bytes)");
}

TEST_CASE("paged cache: stats and to_json") {
  auto cache = PagedKvCache::create(small_config()).value();
  SeqId a = cache.new_sequence();
  for (int t = 0; t < 5; ++t) append_tag(cache, a, t, t);
  KvStats st = cache.stats();
  CHECK(st.block_tokens == 4);
  CHECK(st.bytes_per_token == 512);
  CHECK(st.blocks_in_use == 2);
  CHECK(st.bytes_reserved == 4096);
  CHECK(st.bytes_used == 2560);
  CHECK(st.waste_pct == doctest::Approx(37.5));
  CHECK(st.bytes_contiguous == 100 * 512);
  CHECK(st.shared_blocks == 0);
  SeqId b = cache.fork(a);
  (void)b;
  st = cache.stats();
  CHECK(st.shared_blocks == 2);
  CHECK(st.bytes_saved == 4096);
  CHECK(st.bytes_used == 2560);  // shared slots count once
  CHECK(st.bytes_contiguous == 2 * 100 * 512);
  CHECK(st.blocks_peak == 2);
  CHECK(st.to_json() ==
        "{\"kv_block_tokens\":4,\"kv_blocks_in_use\":2,\"kv_blocks_peak\":2,\"kv_bytes_per_token\":"
        "512,"
        "\"kv_bytes_reserved\":4096,\"kv_bytes_used\":2560,\"kv_waste_pct\":37.50,\"kv_bytes_"
        "contiguous\":102400,"
        "\"kv_shared_blocks\":2,\"kv_bytes_saved\":4096,\"kv_budget_bytes\":0,\"kv_type\":\"f32\","
        "\"kv_policy\":\"full\",\"kv_evicted_tokens\":0}");
}

TEST_CASE("paged cache: quantized storage reads back within the format's bound") {
  for (KvType t : {KvType::kF16, KvType::kQ8_0, KvType::kQ4_0}) {
    auto cache = PagedKvCache::create(small_config(t)).value();
    SeqId s = cache.new_sequence();
    for (int i = 0; i < 6; ++i) append_tag(cache, s, i, i);
    std::vector<float> buf(32);
    for (int i = 0; i < 6; ++i) {
      auto k = row_of(i, 1, false, 32);
      const float* p = cache.key(s, 1, i, buf.data());
      CHECK(p == buf.data());
      float absmax = 0, err = 0;
      for (int j = 0; j < 32; ++j) {
        absmax = std::max(absmax, std::fabs(k[static_cast<std::size_t>(j)]));
        err = std::max(err, std::fabs(k[static_cast<std::size_t>(j)] - p[j]));
      }
      float bound = t == KvType::kF16    ? 0.0f
                    : t == KvType::kQ8_0 ? absmax / 127 * 0.5625f
                                         : absmax / 8 * 1.01f;
      CHECK(err <= bound);
    }
  }
  CHECK(PagedKvCache::create(small_config(KvType::kQ8_0)).value().bytes_per_token() == 2 * 2 * 34);
  CHECK(PagedKvCache::create(small_config(KvType::kQ4_0)).value().bytes_per_token() == 2 * 2 * 18);
}

TEST_CASE(
    "paged cache: eviction keeps exactly the intended positions, compacted, keys re-rotated") {
  auto cache = PagedKvCache::create(small_config(KvType::kF32, "sinks:2,window:3")).value();
  SeqId s = cache.new_sequence();
  for (int t = 0; t < 9; ++t) append_tag(cache, s, t, t);
  std::vector<std::pair<int, int>> shifts;
  KeyShift shift = [&](int layer, float* row, int from, int to) {
    if (layer == 0) shifts.emplace_back(from, to);
    for (int i = 0; i < 32; ++i) row[i] += static_cast<float>(to - from);
  };
  REQUIRE(cache.evict(s, shift).value() == 4);
  CHECK(cache.length(s) == 5);
  std::vector<int> kept;
  for (int i = 0; i < 5; ++i) kept.push_back(cache.original_position(s, i));
  CHECK(kept == std::vector<int>{0, 1, 6, 7, 8});
  CHECK(shifts == std::vector<std::pair<int, int>>{{6, 2}, {7, 3}, {8, 4}});
  std::vector<float> buf(32);
  for (int i = 0; i < 5; ++i) {
    int tag = kept[static_cast<std::size_t>(i)];
    for (int l = 0; l < 2; ++l) {
      auto k = row_of(tag, l, false, 32), v = row_of(tag, l, true, 32);
      const float* kp = cache.key(s, l, i, buf.data());
      for (int j = 0; j < 32; ++j)
        REQUIRE(kp[j] == k[static_cast<std::size_t>(j)] + static_cast<float>(i - tag));
      const float* vp = cache.value(s, l, i, buf.data());
      REQUIRE(std::equal(v.begin(), v.end(), vp));
    }
  }
  CHECK(cache.block_table(s).size() == 2);
  CHECK(cache.pool().in_use() == 2);
  CHECK(cache.evict(s, shift).value() == 0);  // within capacity: nothing to do
  CHECK(cache.stats().evicted_tokens == 4);
  CHECK(cache.stats().to_json().find(
            "\"kv_policy\":\"sinks:2,window:3\",\"kv_evicted_tokens\":4}") != std::string::npos);
  // New tokens continue at cache position length(s) with their text position.
  append_tag(cache, s, 9, 9);
  CHECK(cache.original_position(s, 5) == 9);
}

TEST_CASE("paged cache: h2o keeps heavy hitters by accumulated attention; window policy") {
  auto cache = PagedKvCache::create(small_config(KvType::kF32, "h2o:2,window:2")).value();
  SeqId s = cache.new_sequence();
  for (int t = 0; t < 10; ++t) append_tag(cache, s, t, t);
  cache.add_attention(s, 3, 5.0f);
  cache.add_attention(s, 1, 2.0f);
  cache.add_attention(s, 1, 2.0f);
  cache.add_attention(s, 7, 1.0f);
  REQUIRE(cache.evict(s, nullptr).value() == 6);
  std::vector<int> kept;
  for (int i = 0; i < cache.length(s); ++i) kept.push_back(cache.original_position(s, i));
  CHECK(kept == std::vector<int>{1, 3, 8, 9});
  CHECK(cache.attention(s, 0) == 4.0f);
  CHECK(cache.attention(s, 1) == 5.0f);
  for (int i = 0; i < 4; ++i) CHECK(slot_holds(cache, s, i, kept[static_cast<std::size_t>(i)]));

  auto win = PagedKvCache::create(small_config(KvType::kQ8_0, "window:4")).value();
  SeqId w = win.new_sequence();
  for (int t = 0; t < 30; ++t) {
    append_tag(win, w, t, t);
    REQUIRE(win.evict(w, nullptr).ok());
    REQUIRE(win.length(w) == std::min(t + 1, 4));
  }
  for (int i = 0; i < 4; ++i) CHECK(win.original_position(w, i) == 26 + i);
  CHECK(win.pool().in_use() == 1);
  CHECK(win.stats().blocks_peak == 2);
}

TEST_CASE("paged cache: eviction in a forked sequence copies before writing, sibling unchanged") {
  auto cache = PagedKvCache::create(small_config(KvType::kF32, "sinks:1,window:2")).value();
  SeqId a = cache.new_sequence();
  for (int t = 0; t < 7; ++t) append_tag(cache, a, t, t);
  SeqId b = cache.fork(a);
  REQUIRE(cache.evict(b, nullptr).value() == 4);
  for (int t = 0; t < 7; ++t) CHECK(slot_holds(cache, a, t, t));
  CHECK(slot_holds(cache, b, 0, 0));
  CHECK(slot_holds(cache, b, 1, 5));
  CHECK(slot_holds(cache, b, 2, 6));
  CHECK(cache.pool().refcount(cache.block_table(b)[0]) == 1);
  check_pool(cache, {a, b});
}

TEST_CASE("paged cache: randomized fork/append/evict/free against a reference model") {
  for (const char* policy : {"full", "sinks:2,window:5", "h2o:2,window:3"}) {
    for (KvType type : {KvType::kF32, KvType::kF16}) {
      auto cache = PagedKvCache::create(small_config(type, policy)).value();
      std::mt19937 rng(42);
      struct Tok {
        int tag, pos;
      };
      std::map<SeqId, std::vector<Tok>> ref;
      std::map<SeqId, int> next_pos;
      int tag = 0;
      auto pick = [&]() {
        auto it = ref.begin();
        std::advance(it, static_cast<long>(rng() % ref.size()));
        return it->first;
      };
      for (int step = 0; step < 3000; ++step) {
        int op = static_cast<int>(rng() % 10);
        if (ref.empty() || op == 0) {
          SeqId s = cache.new_sequence();
          ref[s] = {};
          next_pos[s] = 0;
        } else if (op == 1 && ref.size() < 12) {
          SeqId src = pick();
          SeqId s = cache.fork(src);
          ref[s] = ref[src];
          next_pos[s] = next_pos[src];
        } else if (op == 2 && ref.size() > 1) {
          SeqId s = pick();
          cache.free(s);
          ref.erase(s);
        } else if (op == 3) {
          SeqId s = pick();
          if (cache.length(s) > 0)
            cache.add_attention(s, static_cast<int>(rng() % static_cast<unsigned>(cache.length(s))),
                                1.0f);
        } else if (op == 4) {
          SeqId s = pick();
          std::vector<int> pos;
          std::vector<float> att;
          for (int i = 0; i < cache.length(s); ++i) {
            pos.push_back(cache.original_position(s, i));
            att.push_back(cache.attention(s, i));
          }
          std::vector<int> keep = cache.config().policy.select(pos, att);
          REQUIRE(cache.evict(s, nullptr).ok());
          std::vector<Tok> kept;
          for (int i : keep) kept.push_back(ref[s][static_cast<std::size_t>(i)]);
          ref[s] = kept;
        } else {
          SeqId s = pick();
          append_tag(cache, s, tag, next_pos[s]);
          REQUIRE(cache.pool().refcount(cache.block_table(s).back()) ==
                  1);  // written block is never shared
          ref[s].push_back({tag++, next_pos[s]++});
        }
        std::vector<SeqId> live;
        for (auto& [s, toks] : ref) {
          live.push_back(s);
          REQUIRE(cache.length(s) == static_cast<int>(toks.size()));
          for (std::size_t i = 0; i < toks.size(); ++i) {
            REQUIRE(cache.original_position(s, static_cast<int>(i)) == toks[i].pos);
            REQUIRE(slot_holds(cache, s, static_cast<int>(i), toks[i].tag));
          }
        }
        check_pool(cache, live);
      }
      for (auto& [s, toks] : ref) cache.free(s);
      CHECK(cache.pool().in_use() == 0);
      CHECK(cache.pool().free_listed() == cache.pool().created());
      CHECK(cache.stats().bytes_reserved == 0);
    }
  }
}

TEST_CASE("paged cache: fork_prefix shares the blocks of the first n slots only") {
  auto cache = PagedKvCache::create(small_config()).value();
  SeqId a = cache.new_sequence();
  for (int t = 0; t < 11; ++t) append_tag(cache, a, t, t);  // 3 blocks: 4 + 4 + 3
  SeqId b = cache.fork_prefix(a, 8);                        // the 2 whole blocks
  CHECK(cache.length(b) == 8);
  CHECK(cache.block_table(b).size() == 2);
  CHECK(cache.stats().shared_blocks == 2);
  append_tag(cache, b, 70, 8);  // a new block of its own: nothing copied
  CHECK(cache.pool().in_use() == 4);
  for (int t = 0; t < 8; ++t) CHECK(slot_holds(cache, b, t, t));
  CHECK(slot_holds(cache, b, 8, 70));
  CHECK(slot_holds(cache, a, 8, 8));
  SeqId c = cache.fork_prefix(a, 6);  // half of block 1: shared, copied on write
  append_tag(cache, c, 80, 6);
  CHECK(slot_holds(cache, c, 6, 80));
  CHECK(slot_holds(cache, a, 6, 6));
  CHECK(slot_holds(cache, b, 6, 6));
  check_pool(cache, {a, b, c});
  cache.free(a);
  cache.free(b);
  cache.free(c);
  check_pool(cache, {});
  CHECK(cache.pool().in_use() == 0);
}
