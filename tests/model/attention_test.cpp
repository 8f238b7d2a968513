// The attention inner loop (model/attention.cpp) against a double-precision
// reference over the values the cache actually holds (decoded back from its
// storage): every KV type, blocks that split the positions into several
// spans, head sizes that do and do not align with q8_0 / q4_0 blocks, keys
// kept before RoPE, and the probabilities handed to observers. Each attention
// kernel set's softmax against a double-precision one.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "model/attention.hpp"
#include "model/attention_kernels.hpp"
#include "model/ops.hpp"
#include "model/paged_kv_adapter.hpp"

using namespace tok::model;
namespace kv = tok::kv;

namespace {

struct Case {
  kv::KvType type;
  int kv_heads, head_dim, group, block, positions;
  bool before_rope;
};

// Softmax-weighted values of one query head, in doubles, from the rows the
// cache returns through key()/value() (which decode the whole row).
std::vector<double> reference(const KvCache& c, int layer, int kvh, int hd, const float* q, int pos,
                              const std::vector<float>& cs, bool rotate,
                              std::vector<double>& probs) {
  std::vector<double> s(static_cast<std::size_t>(pos) + 1);
  double mx = -1e300;
  for (int p = 0; p <= pos; ++p) {
    std::vector<float> k(c.key(layer, p) + kvh * hd, c.key(layer, p) + (kvh + 1) * hd);
    if (rotate) rope_cs(k.data(), hd, cs.data() + p * hd, cs.data() + p * hd + hd / 2, false);
    double d = 0;
    for (int i = 0; i < hd; ++i) d += double(q[i]) * k[i];
    s[p] = d / std::sqrt(double(hd));
    mx = std::max(mx, s[p]);
  }
  double sum = 0;
  for (double& x : s) sum += (x = std::exp(x - mx));
  std::vector<double> out(static_cast<std::size_t>(hd));
  for (int p = 0; p <= pos; ++p) {
    s[p] /= sum;
    const float* v = c.value(layer, p) + kvh * hd;
    for (int i = 0; i < hd; ++i) out[i] += s[p] * v[i];
  }
  probs = s;
  return out;
}

void check(const Case& k, const DotKernels& kernels) {
  CAPTURE(kv::kv_type_name(k.type));
  CAPTURE(static_cast<int>(kernels.isa));
  CAPTURE(k.head_dim);
  CAPTURE(k.block);
  CAPTURE(k.before_rope);
  std::mt19937 rng(7);
  std::normal_distribution<float> nd(0, 1);
  kv::KvConfig cfg;
  cfg.layers = 2;
  cfg.kv_heads = k.kv_heads;
  cfg.head_dim = k.head_dim;
  cfg.block_tokens = k.block;
  cfg.type = k.type;
  cfg.context = k.positions;
  auto pc = kv::PagedKvCache::create(cfg);
  REQUIRE(pc.ok());
  KvShape shape{2, k.kv_heads, k.head_dim, k.positions};
  PagedKvAdapter cache(*pc, shape);
  cache.set_keys_before_rope(k.before_rope);
  std::vector<float> kr(static_cast<std::size_t>(shape.row())), vr(kr.size());
  for (int p = 0; p < k.positions; ++p) {
    for (int l = 0; l < 2; ++l) {
      for (auto* r : {&kr, &vr}) {
        for (float& x : *r) x = nd(rng);
      }
      REQUIRE(cache.append(l, p, kr.data(), vr.data()).ok());
    }
  }
  int hd = k.head_dim;
  std::vector<float> inv_freq, cs(static_cast<std::size_t>(k.positions * hd));
  for (int i = 0; i < hd / 2; ++i) inv_freq.push_back(std::pow(10000.0f, -2.0f * i / hd));
  for (int p = 0; p < k.positions; ++p)
    rope_angles(hd, p, inv_freq.data(), &cs[p * hd], &cs[p * hd + hd / 2]);
  std::vector<float> q(static_cast<std::size_t>(k.group * hd)), out(q.size());
  for (float& x : q) x = nd(rng);
  std::size_t stride = static_cast<std::size_t>(k.positions) + 3;
  std::vector<float> probs(static_cast<std::size_t>(k.group) * stride);
  AttentionScratch scratch;
  for (int pos : {0, k.block - 1, k.block, k.positions - 1}) {
    for (int kvh = 0; kvh < k.kv_heads; ++kvh) {
      AttentionTask t{&cache,
                      1,
                      pos,
                      kvh,
                      hd,
                      k.group,
                      q.data(),
                      out.data(),
                      probs.data(),
                      stride,
                      k.before_rope ? cs.data() : nullptr,
                      false,
                      1.0f / std::sqrt(float(hd))};
      attend(kernels, t, scratch);
      for (int g = 0; g < k.group; ++g) {
        std::vector<double> p;
        auto want = reference(cache, 1, kvh, hd, q.data() + g * hd, pos, cs, k.before_rope, p);
        for (int i = 0; i < hd; ++i) REQUIRE(std::fabs(out[g * hd + i] - want[i]) < 1e-4);
        for (int j = 0; j <= pos; ++j) REQUIRE(std::fabs(probs[g * stride + j] - p[j]) < 1e-5);
      }
    }
  }
}

}  // namespace

TEST_CASE("attention over spans equals a double-precision reference for every KV type") {
  for (kv::KvType type :
       {kv::KvType::kF32, kv::KvType::kF16, kv::KvType::kQ8_0, kv::KvType::kQ4_0}) {
    for (const DotKernels* k : {&scalar_kernels(), &best_kernels()}) {
      check({type, 2, 32, 3, 4, 11, false}, *k);   // heads aligned with 32-value blocks
      check({type, 2, 16, 2, 5, 13, false}, *k);   // a block spans two heads: whole rows decoded
      check({type, 1, 64, 4, 16, 40, true}, *k);   // keys rotated as they are read
      check({type, 2, 64, 3, 32, 45, false}, *k);  // runs of 8 keys and a tail within a span
      check({type, 8, 36, 2, 16, 37, false}, *k);  // heads not a multiple of 8 values
    }
  }
}

TEST_CASE("a cache without spans is read one position at a time") {
  KvShape shape{1, 1, 8, 6};
  ContiguousKvCache flat(shape);
  std::vector<float> k(8), v(8);
  for (int p = 0; p < 6; ++p) {
    for (int i = 0; i < 8; ++i) k[i] = float(p + i) / 10, v[i] = float(p * i);
    REQUIRE(flat.append(0, p, k.data(), v.data()).ok());
  }
  KvSpan s = flat.span(0, 2, true);
  CHECK(s.count == 4);
  CHECK(reinterpret_cast<const float*>(s.data)[3] == 6.0f);
  CHECK(reinterpret_cast<const float*>(s.data + s.stride)[3] == 9.0f);
}

TEST_CASE("every attention kernel set's softmax equals a double-precision softmax") {
  std::vector<const AttentionKernels*> sets{&scalar_attention_kernels()};
  if (const AttentionKernels* p = avx2_attention_kernels()) sets.push_back(p);
  std::mt19937 rng(31);
  for (int n : {1, 2, 7, 8, 9, 17, 100, 1000}) {
    // Spreads from near-uniform to one dominant score, so that some values
    // fall below e^-87 (clamped there by the AVX2 exp) and some to exactly 0.
    for (float spread : {0.01f, 1.0f, 30.0f, 200.0f}) {
      std::normal_distribution<float> d(5.0f, spread);
      std::vector<float> x(static_cast<std::size_t>(n));
      for (auto& v : x) v = d(rng);
      double max = *std::max_element(x.begin(), x.end()), sum = 0;
      std::vector<double> want(x.size());
      for (std::size_t i = 0; i < x.size(); ++i)
        sum += want[i] = std::exp(static_cast<double>(x[i]) - max);
      for (auto& w : want) w /= sum;
      for (const AttentionKernels* k : sets) {
        std::vector<float> got = x;
        k->softmax(got.data(), n);
        for (std::size_t i = 0; i < x.size(); ++i) {
          CAPTURE(n);
          CAPTURE(spread);
          CAPTURE(i);
          CAPTURE(k == &scalar_attention_kernels());
          // A few float roundings of the largest terms (the sum), plus the
          // clamp: e^-87 next to a maximum of 1 is below any tolerance.
          CHECK(std::fabs(got[i] - want[i]) <= 1e-6 * want[i] + 2e-7 / n + 1e-37);
        }
      }
    }
  }
}

TEST_CASE("attention over a block of rows equals each row's own attention, bit for bit") {
  // attend_rows reads each key and value once for all the rows; the rows'
  // ranges differ (causal positions, a sliding window's first position), and
  // the block's spans and chunks start where the rows' own would not.
  std::mt19937 rng(11);
  std::normal_distribution<float> nd(0, 1);
  for (kv::KvType type : {kv::KvType::kF32, kv::KvType::kF16, kv::KvType::kQ8_0}) {
    for (bool before_rope : {false, true}) {
      for (const DotKernels* k : {&scalar_kernels(), &best_kernels()}) {
        CAPTURE(kv::kv_type_name(type));
        CAPTURE(before_rope);
        CAPTURE(static_cast<int>(k->isa));
        const int kv_heads = 2, hd = 64, group = 3, positions = 150;
        kv::KvConfig cfg;
        cfg.layers = 1;
        cfg.kv_heads = kv_heads;
        cfg.head_dim = hd;
        cfg.block_tokens = 48;
        cfg.type = type;
        cfg.context = positions;
        auto pc = kv::PagedKvCache::create(cfg);
        REQUIRE(pc.ok());
        KvShape shape{1, kv_heads, hd, positions};
        PagedKvAdapter cache(*pc, shape);
        cache.set_keys_before_rope(before_rope);
        std::vector<float> kr(static_cast<std::size_t>(shape.row())), vr(kr.size());
        for (int p = 0; p < positions; ++p) {
          for (float& x : kr) x = nd(rng);
          for (float& x : vr) x = nd(rng);
          REQUIRE(cache.append(0, p, kr.data(), vr.data()).ok());
        }
        std::vector<float> inv_freq, cs(static_cast<std::size_t>(positions * hd));
        for (int i = 0; i < hd / 2; ++i) inv_freq.push_back(std::pow(10000.0f, -2.0f * i / hd));
        for (int p = 0; p < positions; ++p)
          rope_angles(hd, p, inv_freq.data(), &cs[p * hd], &cs[p * hd + hd / 2]);
        const int rows = 16, first_pos = 120;
        const std::size_t stride = positions + 1;
        std::vector<float> q(static_cast<std::size_t>(rows * group * hd));
        for (float& x : q) x = nd(rng);
        for (int window : {0, 70}) {
          CAPTURE(window);
          std::vector<float> out_rows(q.size(), NAN), out_one(q.size(), NAN);
          std::vector<float> probs_rows(rows * group * stride, -1.0f),
              probs_one(probs_rows.size(), -1.0f);
          auto task = [&](int b, std::vector<float>& out, std::vector<float>& probs) {
            int pos = first_pos + b;
            AttentionTask t{&cache,
                            0,
                            pos,
                            1,
                            hd,
                            group,
                            q.data() + b * group * hd,
                            out.data() + b * group * hd,
                            probs.data() + b * group * stride,
                            stride,
                            before_rope ? cs.data() : nullptr,
                            false,
                            1.0f / std::sqrt(float(hd))};
            t.first = window > 0 ? std::max(0, pos - window + 1) : 0;
            return t;
          };
          std::vector<AttentionTask> block;
          for (int b = 0; b < rows; ++b) block.push_back(task(b, out_rows, probs_rows));
          AttentionScratch s1, s2;
          attend_rows(*k, block.data(), rows, s1);
          for (int b = 0; b < rows; ++b) attend(*k, task(b, out_one, probs_one), s2);
          CHECK(std::memcmp(out_rows.data(), out_one.data(), out_rows.size() * sizeof(float)) == 0);
          CHECK(std::memcmp(probs_rows.data(), probs_one.data(),
                            probs_rows.size() * sizeof(float)) == 0);
          CHECK(out_rows[0] == out_rows[0]);  // written (not NaN)
        }
      }
    }
  }
}

TEST_CASE("the AVX-512 attention kernels give the AVX2 kernels' scores and sums bit for bit") {
  const AttentionKernels* a2 = avx2_attention_kernels();
  const AttentionKernels* a5 = avx512_attention_kernels();
  if (!a2 || !a5) {
    MESSAGE("no AVX-512 F/VL/DQ on this CPU: the AVX-512 attention kernels are not used");
    return;
  }
  std::mt19937 rng(5);
  std::normal_distribution<float> nd(0, 1);
  for (int hd : {64, 128, 48, 36}) {
    for (int group : {1, 2, 3, 4, 7}) {
      for (int n : {1, 8, 13, 37}) {
        CAPTURE(hd);
        CAPTURE(group);
        CAPTURE(n);
        const std::size_t key_stride = static_cast<std::size_t>(hd + 12) * sizeof(float);
        std::vector<float> q(static_cast<std::size_t>(group * hd)),
            keys(static_cast<std::size_t>(n) * (hd + 12));
        for (float& x : q) x = nd(rng);
        for (float& x : keys) x = nd(rng);
        const std::size_t s_stride = static_cast<std::size_t>(n) + 5;
        std::vector<float> s2(group * s_stride, 0.0f), s5(s2.size(), 0.0f);
        auto* kb = reinterpret_cast<const std::uint8_t*>(keys.data());
        a2->scores(q.data(), group, hd, kb, key_stride, n, 0.125f, s2.data(), s_stride);
        a5->scores(q.data(), group, hd, kb, key_stride, n, 0.125f, s5.data(), s_stride);
        CHECK(std::memcmp(s2.data(), s5.data(), s2.size() * sizeof(float)) == 0);
        std::vector<const float*> v(static_cast<std::size_t>(n));
        for (int j = 0; j < n; ++j) v[j] = keys.data() + static_cast<std::size_t>(j) * (hd + 12);
        std::vector<float> o2(static_cast<std::size_t>(group * hd)), o5;
        for (float& x : o2) x = nd(rng);
        o5 = o2;
        a2->accumulate(s2.data(), s_stride, group, v.data(), n, o2.data(), hd);
        a5->accumulate(s2.data(), s_stride, group, v.data(), n, o5.data(), hd);
        CHECK(std::memcmp(o2.data(), o5.data(), o2.size() * sizeof(float)) == 0);
      }
    }
  }
}
