// Many sequences on one paged cache: continuous batching (model/batch.hpp),
// samples and beam search (model/samples.hpp). The requirement is exact:
// every request gives the tokens model::generate gives for it alone with the
// same seed, whatever runs beside it, with or without preemption; samples
// with a shared prompt equal samples without sharing; every block returns to
// the free list at the end.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "model/batch.hpp"
#include "model/generator.hpp"
#include "model/samples.hpp"

using namespace tok::model;
using tok::ThreadPool;
using tok::bpe::TokenId;

namespace {

std::string default_model() {
  return std::string(TOK_VOCAB_DIR_FOR_TESTS) + "/tok-tiny-bible.gguf";
}

tok::kv::KvConfig config_for(const Model& m, int block, std::uint64_t budget = 0) {
  tok::kv::KvConfig c;
  c.layers = static_cast<int>(m.config().n_layers);
  c.kv_heads = static_cast<int>(m.config().n_kv_heads);
  c.head_dim = static_cast<int>(m.config().head_dim);
  c.block_tokens = block;
  c.budget_bytes = budget;
  c.context = static_cast<int>(m.config().ctx);
  return c;
}

std::vector<TokenId> prompt_ids(const Model& m, const std::string& text) {
  const tok::bpe::Tokenizer& tk = m.tokenizer();
  std::vector<TokenId> ids;
  if (tk.add_bos && tk.bos) ids.push_back(*tk.bos);
  auto enc = tk.encode(text, tok::bpe::SpecialMode::kText);
  REQUIRE(enc.ok());
  ids.insert(ids.end(), enc->begin(), enc->end());
  return ids;
}

struct Alone {
  std::vector<TokenId> ids;
  std::string text;
};

// The single-sequence generator on its own contiguous cache.
Alone run_alone(const Model& m, ThreadPool& pool, const BatchRequest& r, int ctx) {
  GenerateOptions o;
  o.max_tokens = r.max_tokens;
  o.ctx = ctx;
  o.stops = r.stops;
  o.sampling = r.sampling;
  Alone a;
  GenerateCallbacks cb;
  cb.token = [&](const TokenInfo& t) { a.ids.push_back(t.id); };
  cb.text = [&](std::string_view s) { a.text += s; };
  auto st = generate(m, pool, r.prompt, o, cb);
  REQUIRE(st.ok());
  return a;
}

std::vector<BatchRequest> requests(const Model& m) {
  const char* prompts[] = {"In the beginning",           "And Jesus said unto them",
                           "The LORD is my shepherd",    "Blessed are the",
                           "And God said, Let there be", "Now the serpent was"};
  std::vector<BatchRequest> rs;
  for (int i = 0; i < 12; ++i) {
    BatchRequest r;
    r.prompt = prompt_ids(m, prompts[i % 6]);
    r.max_tokens = 6 + (i * 7) % 23;
    r.sampling.seed = 100 + static_cast<std::uint64_t>(i);
    r.sampling.greedy = i % 4 == 0;
    r.sampling.temperature = 0.7f + 0.1f * static_cast<float>(i % 3);
    if (i == 5) r.stops = {","};
    rs.push_back(r);
  }
  return rs;
}

}  // namespace

TEST_CASE("batched requests give exactly what each gives alone, with and without preemption") {
  auto m = Model::load(default_model());
  REQUIRE(m.ok());
  ThreadPool pool(2);
  int ctx = 96;
  std::vector<BatchRequest> rs = requests(*m);
  std::vector<Alone> want;
  for (const BatchRequest& r : rs) want.push_back(run_alone(*m, pool, r, ctx));
  std::size_t block_bytes = 0;
  {
    auto probe = tok::kv::PagedKvCache::create(config_for(*m, 4));
    REQUIRE(probe.ok());
    block_bytes = probe->pool().block_bytes();
  }
  // Unlimited; then a budget of 14 blocks of 4 tokens: a few sequences at a
  // time, growth forces preemptions; max_batch 3 caps the step width.
  // (Plain locals, not a structured binding: CAPTURE's lambda may not
  // capture one in clang 14.)
  for (auto limits : {std::pair{0, 64}, std::pair{14, 64}, std::pair{0, 3}}) {
    int budget_blocks = limits.first, max_batch = limits.second;
    CAPTURE(budget_blocks);
    CAPTURE(max_batch);
    auto cache = tok::kv::PagedKvCache::create(
        config_for(*m, 4, static_cast<std::uint64_t>(budget_blocks) * block_bytes));
    REQUIRE(cache.ok());
    std::map<std::size_t, BatchResult> got;
    auto st = run_batch(*m, pool, *cache, rs, BatchOptions{ctx, max_batch},
                        [&](std::size_t i, BatchResult&& r) { got.emplace(i, std::move(r)); });
    REQUIRE(st.ok());
    REQUIRE(got.size() == rs.size());
    for (std::size_t i = 0; i < rs.size(); ++i) {
      CAPTURE(i);
      CHECK(got[i].ids == want[i].ids);
      CHECK(got[i].text == want[i].text);
    }
    CHECK(st->sequences == rs.size());
    CHECK(st->peak_in_flight >= 2);
    CHECK(st->peak_in_flight <= static_cast<std::size_t>(max_batch));
    if (budget_blocks > 0) {
      CHECK(st->preemptions > 0);
      CHECK(st->recomputed_tokens > 0);
      CHECK(st->kv.blocks_peak <= static_cast<std::uint64_t>(budget_blocks));
    } else {
      CHECK(st->preemptions == 0);
    }
    // Allocator invariants: every block is back on the free list.
    CHECK(cache->sequences() == 0);
    CHECK(cache->pool().in_use() == 0);
    CHECK(cache->pool().free_listed() == cache->pool().created());
  }
}

TEST_CASE("a request whose prompt exceeds the budget or the context is refused up front") {
  auto m = Model::load(default_model());
  REQUIRE(m.ok());
  ThreadPool pool(1);
  auto probe = tok::kv::PagedKvCache::create(config_for(*m, 4));
  REQUIRE(probe.ok());
  auto cache = tok::kv::PagedKvCache::create(config_for(*m, 4, 2 * probe->pool().block_bytes()));
  REQUIRE(cache.ok());
  BatchRequest r;
  r.prompt = prompt_ids(*m, "And God said, Let there be light: and there was light.");
  CHECK_FALSE(check_batch_request(r, *cache, 96).ok());
  CHECK_FALSE(check_batch_request(r, *probe, 4).ok());
  CHECK(check_batch_request(r, *probe, 96).ok());
  auto st =
      run_batch(*m, pool, *cache, {r}, BatchOptions{96, 64}, [](std::size_t, BatchResult&&) {});
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().message.find("request 0") != std::string::npos);
}

TEST_CASE("samples sharing the prompt equal samples without sharing and single runs") {
  auto m = Model::load(default_model());
  REQUIRE(m.ok());
  ThreadPool pool(2);
  std::vector<TokenId> prompt = prompt_ids(*m, "And it came to pass, when the men of the city");
  SamplesOptions o;
  o.samples = 5;
  o.ctx = 128;
  o.max_tokens = 20;
  o.sampling.seed = 42;
  std::vector<MultiRun> runs;
  std::vector<tok::kv::KvStats> kv;
  for (bool share : {true, false}) {
    o.share = share;
    auto cache = tok::kv::PagedKvCache::create(config_for(*m, 4));
    REQUIRE(cache.ok());
    auto run = generate_samples(*m, pool, *cache, prompt, o);
    REQUIRE(run.ok());
    CHECK(cache->pool().in_use() == 0);
    CHECK(cache->pool().free_listed() == cache->pool().created());
    runs.push_back(std::move(*run));
  }
  REQUIRE(runs[0].results.size() == 5);
  for (std::size_t i = 0; i < 5; ++i) {
    CAPTURE(i);
    CHECK(runs[0].results[i].ids == runs[1].results[i].ids);
    CHECK(runs[0].results[i].text == runs[1].results[i].text);
    BatchRequest r;
    r.prompt = prompt;
    r.max_tokens = o.max_tokens;
    r.sampling = o.sampling;
    r.sampling.seed = 42 + i;
    CHECK(runs[0].results[i].ids == run_alone(*m, pool, r, o.ctx).ids);
  }
  // Sharing: the prompt's full blocks are shared by 5, saving 4 copies each,
  // and the peak holds fewer blocks than 5 private prompts.
  std::uint64_t full = prompt.size() / 4;
  CHECK(runs[0].stats.kv.shared_blocks >= full);
  CHECK(runs[0].stats.kv.bytes_saved >= 4 * full * runs[0].stats.kv.bytes_per_token * 4);
  CHECK(runs[1].stats.kv.shared_blocks == 0);
  CHECK(runs[0].stats.kv.blocks_peak + 4 * full <= runs[1].stats.kv.blocks_peak);
  CHECK(runs[0].stats.prefill_tokens == prompt.size());
  CHECK(runs[1].stats.prefill_tokens == 5 * prompt.size());
}

TEST_CASE("beam search: one beam is greedy; scores are the summed log-probabilities") {
  auto m = Model::load(default_model());
  REQUIRE(m.ok());
  ThreadPool pool(2);
  std::vector<TokenId> prompt = prompt_ids(*m, "The LORD is my shepherd");
  auto cache = tok::kv::PagedKvCache::create(config_for(*m, 4));
  REQUIRE(cache.ok());
  auto one = beam_search(*m, pool, *cache, prompt, BeamOptions{1, 128, 15});
  REQUIRE(one.ok());
  BatchRequest greedy;
  greedy.prompt = prompt;
  greedy.max_tokens = 15;
  greedy.sampling.greedy = true;
  CHECK(one->results.at(0).ids == run_alone(*m, pool, greedy, 128).ids);

  auto four = beam_search(*m, pool, *cache, prompt, BeamOptions{4, 128, 15});
  REQUIRE(four.ok());
  REQUIRE(!four->results.empty());
  CHECK(four->stats.kv.shared_blocks > 0);
  for (std::size_t i = 1; i < four->results.size(); ++i) {
    CHECK(four->results[i - 1].score >= four->results[i].score);
  }
  // Re-score the best beam in one pass on a contiguous cache.
  const SampleResult& best = four->results[0];
  Forward fwd(*m, pool);
  ContiguousKvCache flat(fwd.kv_shape(128));
  std::vector<TokenId> all = prompt;
  all.insert(all.end(), best.ids.begin(), best.ids.end());
  auto logits = fwd.eval(all, flat, true);
  REQUIRE(logits.ok());
  std::size_t nv = static_cast<std::size_t>(m->config().n_vocab);
  double sum = 0;
  for (std::size_t t = prompt.size() - 1; t + 1 < all.size(); ++t) {
    sum +=
        logprob_of(logits->subspan(t * nv, std::min(nv, m->tokenizer().vocab_size())), all[t + 1]);
  }
  CHECK(sum == doctest::Approx(best.score).epsilon(1e-4));
  CHECK(cache->pool().in_use() == 0);
  CHECK(cache->pool().free_listed() == cache->pool().created());
}

TEST_CASE("requests with a common prompt prefix share its blocks and give the same tokens") {
  auto m = Model::load(default_model());
  REQUIRE(m.ok());
  ThreadPool pool(2);
  int ctx = 128;
  std::string common = "And it came to pass, when the men of the city saw the ark of the LORD";
  std::vector<BatchRequest> rs;
  for (const char* tail : {", that they said", " upon the cart", ", they rejoiced", "."}) {
    BatchRequest r;
    r.prompt = prompt_ids(*m, common + tail);
    r.max_tokens = 12;
    r.sampling.seed = 7 + rs.size();
    rs.push_back(r);
  }
  std::vector<std::vector<TokenId>> want;
  for (const BatchRequest& r : rs) want.push_back(run_alone(*m, pool, r, ctx).ids);
  for (bool share : {true, false}) {
    CAPTURE(share);
    auto cache = tok::kv::PagedKvCache::create(config_for(*m, 4));
    REQUIRE(cache.ok());
    std::map<std::size_t, BatchResult> got;
    auto st = run_batch(*m, pool, *cache, rs, BatchOptions{ctx, 64, share},
                        [&](std::size_t i, BatchResult&& r) { got.emplace(i, std::move(r)); });
    REQUIRE(st.ok());
    for (std::size_t i = 0; i < rs.size(); ++i) CHECK(got[i].ids == want[i]);
    if (share) {
      CHECK(st->prefix_shared_tokens >= 3 * 12);  // 3 requests x at least 3 whole blocks of 4
      CHECK(st->prefix_shared_blocks_peak >= 3);
    } else {
      CHECK(st->prefix_shared_tokens == 0);
    }
    CHECK(cache->pool().in_use() == 0);
    CHECK(cache->pool().free_listed() == cache->pool().created());
  }
}
