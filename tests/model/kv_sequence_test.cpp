// generate() and score() on the paged cache, and eviction at the model
// level: the positions each policy keeps (window, sinks, h2o against a
// reference that replays H2O's bookkeeping), keys re-rotated to their new
// cache positions, generation past the context, every block back on the
// free list, quantized storage's perplexity change bounded.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <vector>

#include "model/attention_mass.hpp"
#include "model/generator.hpp"
#include "model/kv_sequence.hpp"
#include "model/score.hpp"

using namespace tok::model;
using tok::ThreadPool;
using tok::bpe::TokenId;
namespace kv = tok::kv;

namespace {

std::string default_model() {
  return std::string(TOK_VOCAB_DIR_FOR_TESTS) + "/tok-tiny-bible.gguf";
}

// Loaded once, with its tokenizer (generate() and the sample text need it).
const Model& tiny() {
  static auto m = Model::load(default_model());
  REQUIRE_MESSAGE(m.ok(), m.error().message);
  return *m;
}

kv::KvConfig config(const std::string& policy, kv::KvType type = kv::KvType::kF32, int block = 16) {
  kv::KvConfig c;
  c.block_tokens = block;
  c.type = type;
  auto p = kv::parse_eviction_policy(policy);
  REQUIRE(p.ok());
  c.policy = *p;
  return kv_config_for(tiny(), static_cast<int>(tiny().config().ctx), c);
}

std::vector<TokenId> tokens(std::size_t n) {
  std::vector<TokenId> ids;
  for (std::size_t i = 0; i < n; ++i)
    ids.push_back(static_cast<TokenId>((i * 7919 + 13) % 4000 + 5));
  return ids;
}

std::vector<TokenId> sample_text_ids() {
  std::ifstream in(std::string(TOK_TEST_DATA) + "/model/sample.txt");
  std::stringstream ss;
  ss << in.rdbuf();
  auto ids = tiny().tokenizer().encode(ss.str(), tok::bpe::SpecialMode::kText);
  REQUIRE(ids.ok());
  return *ids;
}

std::vector<int> kept(const PagedKvAdapter& c) {
  std::vector<int> pos;
  for (int s = 0; s < c.size(); ++s) pos.push_back(c.paged().original_position(c.seq(), s));
  return pos;
}

std::vector<int> range(int a, int b) {
  std::vector<int> r;
  for (int i = a; i < b; ++i) r.push_back(i);
  return r;
}

void check_free(const kv::PagedKvCache& c) {
  CHECK(c.pool().in_use() == 0);
  CHECK(c.pool().free_listed() == c.pool().created());
  CHECK(c.stats().bytes_reserved == 0);
}

// Replays H2O's bookkeeping from the attention the model reports: a list of
// (text position, mass) per slot, evicted by EvictionPolicy::select exactly
// when KvSequence must make room, so the test checks where the masses land
// and which positions survive, not the selection rule (tests/kv covers it).
struct H2oReference final : AttentionObserver {
  std::vector<int> pos;
  std::vector<float> mass;
  void on_attention(int, const BatchRow& row, int heads, const float* probs,
                    std::size_t stride) override {
    for (int p = 0; p <= row.pos; ++p) {
      float m = 0.0f;  // summed over heads first, as AttentionMass does: the same rounding
      for (int h = 0; h < heads; ++h)
        m += probs[static_cast<std::size_t>(h) * stride + static_cast<std::size_t>(p)];
      mass[static_cast<std::size_t>(p)] += m;
    }
  }
};

}  // namespace

TEST_CASE("generate on the paged f32 cache gives the contiguous cache's greedy tokens") {
  ThreadPool pool(1);
  std::vector<TokenId> prompt = tokens(20);
  GenerateOptions o;
  o.max_tokens = 40;
  o.stop_at_eos = false;
  o.sampling.greedy = true;
  for (int block : {1, 16}) {
    o.kv = config("full", kv::KvType::kF32, block);
    auto cache = kv::PagedKvCache::create(o.kv);
    REQUIRE(cache.ok());
    std::vector<TokenId> got;
    GenerateCallbacks cb;
    cb.token = [&](const TokenInfo& t) { got.push_back(t.id); };
    auto st = generate(tiny(), pool, prompt, o, cb, *cache);
    REQUIRE(st.ok());
    check_free(*cache);
    CHECK(st->kv.blocks_peak == (60 - 1 + block - 1) / block);  // the last token is never evaluated
    CHECK(st->kv_bytes == st->kv.bytes_reserved);
    // The same loop on a contiguous cache.
    Forward fwd(tiny(), pool);
    ContiguousKvCache flat(fwd.kv_shape(static_cast<int>(tiny().config().ctx)));
    auto logits = fwd.eval(prompt, flat);
    std::vector<TokenId> want, history = prompt;
    Sampler s(o.sampling);
    while (want.size() < got.size()) {
      REQUIRE(logits.ok());
      want.push_back(s.sample(logits->first(tiny().tokenizer().vocab_size()), history));
      history.push_back(want.back());
      TokenId one[1] = {want.back()};
      logits = fwd.eval(one, flat);
    }
    CHECK(got == want);
  }
}

TEST_CASE("eviction keeps exactly the intended positions: window and sinks") {
  ThreadPool pool(1);
  Forward fwd(tiny(), pool);
  std::vector<TokenId> ids = tokens(40);
  struct Case {
    const char* policy;
    std::vector<int> want;
  };
  // The cache holds the policy's capacity, then the token being evaluated on top.
  std::vector<int> sinks = {0, 1};
  for (int p : range(33, 40)) sinks.push_back(p);
  for (const Case& c : {Case{"window:8", range(31, 40)}, Case{"sinks:2,window:6", sinks}}) {
    CAPTURE(c.policy);
    for (int block : {1, 4, 16}) {
      CAPTURE(block);
      auto cache = kv::PagedKvCache::create(config(c.policy, kv::KvType::kF32, block));
      REQUIRE(cache.ok());
      {
        KvSequence seq(fwd, *cache, 64);
        REQUIRE(seq.eval(ids).ok());
        CHECK(kept(seq.cache()) == c.want);
        CHECK(cache->stats().evicted_tokens == 40 - c.want.size());
        // Keys are kept unrotated and moved as they are; rotated to their
        // cache slot (as attention reads them) they must be what the token
        // gets at that position: layer 0's key of a token depends on the
        // token and its position only, so slot i, rotated by i, must hold
        // the key that token gets at position i.
        REQUIRE(seq.cache().keys_before_rope());
        kv::KeyShift rotate = fwd.key_shift();
        int row = seq.cache().shape().row();
        for (int s = 0; s < seq.cache().size(); ++s) {
          ContiguousKvCache fresh(fwd.kv_shape(64));
          std::vector<TokenId> pad(static_cast<std::size_t>(s), 5);
          pad.push_back(ids[static_cast<std::size_t>(c.want[static_cast<std::size_t>(s)])]);
          REQUIRE(fwd.eval(pad, fresh).ok());
          std::vector<float> rotated(seq.cache().key(0, s), seq.cache().key(0, s) + row);
          rotate(0, rotated.data(), 0, s);
          const float* got = rotated.data();
          const float* want = fresh.key(0, s);
          double d = 0;
          for (int i = 0; i < row; ++i) d = std::max(d, std::fabs(double(got[i]) - want[i]));
          CHECK(d < 1e-4);
        }
      }
      check_free(*cache);
    }
  }
}

TEST_CASE("eviction keeps exactly the intended positions: h2o follows the attention mass") {
  ThreadPool pool(1);
  Forward fwd(tiny(), pool);
  std::vector<TokenId> ids = tokens(60);
  auto cache = kv::PagedKvCache::create(config("h2o:4,window:6", kv::KvType::kF32, 4));
  REQUIRE(cache.ok());
  H2oReference ref;
  AttentionMass mass(&ref);
  fwd.set_attention_observer(&mass);
  KvSequence seq(fwd, *cache, 64);
  const kv::EvictionPolicy& policy = cache->config().policy;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    // KvSequence evicts when the cache is over capacity; so does the reference.
    if (static_cast<int>(ref.pos.size()) > policy.capacity()) {
      std::vector<int> keep = policy.select(ref.pos, ref.mass);
      std::vector<int> pos;
      std::vector<float> m;
      for (int k : keep) {
        pos.push_back(ref.pos[static_cast<std::size_t>(k)]);
        m.push_back(ref.mass[static_cast<std::size_t>(k)]);
      }
      ref.pos = pos;
      ref.mass = m;
    }
    ref.pos.push_back(static_cast<int>(i));
    ref.mass.push_back(0.0f);
    REQUIRE(seq.eval(std::span<const TokenId>(&ids[i], 1)).ok());
    REQUIRE(kept(seq.cache()) == ref.pos);
    for (int s = 0; s < seq.cache().size(); ++s) {
      CHECK(cache->attention(seq.cache().seq(), s) ==
            doctest::Approx(ref.mass[static_cast<std::size_t>(s)]));
    }
  }
  std::vector<int> pos = kept(seq.cache());
  CHECK(pos.size() == 11);
  CHECK(std::vector<int>(pos.end() - 7, pos.end()) ==
        range(53, 60));  // the window + the current token
  CHECK(cache->stats().evicted_tokens == 60 - 11);
}

TEST_CASE("a bounded policy generates past the context; every block returns to the free list") {
  ThreadPool pool(1);
  GenerateOptions o;
  o.ctx = 64;
  o.max_tokens = 200;
  o.stop_at_eos = false;
  o.sampling.seed = 7;
  for (const char* policy : {"window:48", "sinks:4,window:44", "h2o:8,window:40"}) {
    CAPTURE(policy);
    kv::KvConfig c = config(policy);
    c.context = 64;
    auto cache = kv::PagedKvCache::create(c);
    REQUIRE(cache.ok());
    std::size_t n = 0;
    GenerateCallbacks cb;
    cb.token = [&](const TokenInfo&) { ++n; };
    auto st = generate(tiny(), pool, tokens(30), o, cb, *cache);
    REQUIRE_MESSAGE(st.ok(), st.error().message);
    CHECK(n == 200);
    CHECK(st->stop == StopReason::kMaxTokens);
    CHECK(st->kv.evicted_tokens == 30 + 199 - 49);
    CHECK(st->kv.blocks_peak <= 4);  // 49 slots of 16
    check_free(*cache);
  }
  // Full: the context still ends generation.
  o.kv = config("full");
  auto st = generate(tiny(), pool, tokens(30), o, {});
  REQUIRE(st.ok());
  CHECK(st->stop == StopReason::kContextFull);
  // A policy that keeps the whole context leaves no room for the next token.
  o.kv = config("window:64");
  st = generate(tiny(), pool, tokens(3), o, {});
  REQUIRE(!st.ok());
  CHECK(st.error().message.find("window:64 keeps 64 tokens") != std::string::npos);
}

TEST_CASE("score: a stream whose policy keeps everything equals one window") {
  ThreadPool pool(1);
  std::vector<TokenId> ids = tokens(150);
  ScoreOptions o;
  o.bos = tiny().tokenizer().bos;
  o.kv = config("full");
  auto windows = score(tiny(), pool, ids, o);
  REQUIRE(windows.ok());
  CHECK(windows->windows == 1);
  CHECK_FALSE(windows->streamed);
  o.kv = config("window:200");
  auto cache = kv::PagedKvCache::create(o.kv);
  REQUIRE(cache.ok());
  auto stream = score(tiny(), pool, ids, o, *cache);
  REQUIRE(stream.ok());
  CHECK(stream->streamed);
  CHECK(stream->tokens == windows->tokens);
  CHECK(stream->tokens == 150);
  CHECK(stream->kv.evicted_tokens == 0);
  // Different batch sizes: equal up to float rounding.
  CHECK(stream->mean_nll() == doctest::Approx(windows->mean_nll()).epsilon(1e-5));
  check_free(*cache);
}

TEST_CASE("score: policies over a text longer than the context") {
  ThreadPool pool(2);
  std::vector<TokenId> ids = sample_text_ids();
  ScoreOptions o;
  o.ctx = 64;
  o.bos = tiny().tokenizer().bos;
  REQUIRE(ids.size() > 4 * 64);
  auto ppl = [&](const char* policy, kv::KvType type = kv::KvType::kF32) {
    o.kv = config(policy, type);
    o.kv.context = 64;
    auto cache = kv::PagedKvCache::create(o.kv);
    REQUIRE(cache.ok());
    auto st = score(tiny(), pool, ids, o, *cache);
    REQUIRE_MESSAGE(st.ok(), st.error().message);
    check_free(*cache);
    CHECK(st->tokens == ids.size());
    return std::exp(st->mean_nll());
  };
  double full = ppl("full"), window = ppl("window:32"), sinks = ppl("sinks:4,window:28");
  double h2o = ppl("h2o:4,window:28");
  MESSAGE("perplexity full ", full, " window ", window, " sinks ", sinks, " h2o ", h2o);
  for (double p : {full, window, sinks, h2o}) CHECK((p > 1 && p < 1000));
  // Storage types: the perplexity change against f32 stays small.
  for (auto type_tol : {std::pair{kv::KvType::kF16, 0.001}, std::pair{kv::KvType::kQ8_0, 0.01},
                        std::pair{kv::KvType::kQ4_0, 0.1}}) {
    kv::KvType type = type_tol.first;  // not a structured binding: clang 14 cannot capture those
    double tol = type_tol.second;
    CAPTURE(kv::kv_type_name(type));
    double p = ppl("sinks:4,window:28", type);
    MESSAGE(kv::kv_type_name(type), " perplexity ", p, " vs f32 ", sinks);
    CHECK(std::fabs(p - sinks) / sinks < tol);
  }
}

TEST_CASE("a budget too small for the text is an error, and nothing leaks") {
  ThreadPool pool(1);
  kv::KvConfig c = config("full", kv::KvType::kF32, 4);
  c.budget_bytes = 3 * 2 * c.layers * 4 * c.row() * sizeof(float);  // 3 blocks = 12 tokens
  auto cache = kv::PagedKvCache::create(c);
  REQUIRE(cache.ok());
  GenerateOptions o;
  o.max_tokens = 5;
  auto st = generate(tiny(), pool, tokens(20), o, {}, *cache);
  REQUIRE(!st.ok());
  CHECK(st.error().message.find("no free block") != std::string::npos);
  check_free(*cache);
  // With a window that fits the budget, the same cache generates on.
  c.policy = *kv::parse_eviction_policy("window:7");
  auto windowed = kv::PagedKvCache::create(c);
  REQUIRE(windowed.ok());
  o.max_tokens = 30;
  st = generate(tiny(), pool, tokens(20), o, {}, *windowed);
  REQUIRE_MESSAGE(st.ok(), st.error().message);
  check_free(*windowed);
}
