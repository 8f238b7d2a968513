// BPE trainer: exact tiny cases, a naive reference trainer (recounts every
// pair for every merge) that must give identical merges, counting
// determinism across thread counts and chunk cuts.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "bpe/tokenizer.hpp"
#include "bpe/trainer.hpp"
#include "bpe/word_counter.hpp"

using namespace tok;
using namespace tok::bpe;

namespace {

// The textbook algorithm, deliberately naive: recount every pair over every
// word for each merge; the same tie-break (highest count, then smallest
// (left, right)), min_frequency, max_token_bytes and id reuse rules.
TrainResult naive_train(const WordCounts& wc, const TrainOptions& opt) {
  std::vector<std::vector<TokenId>> words;
  std::vector<std::uint64_t> counts;
  for (std::size_t i = 0; i < wc.size(); ++i) {
    std::vector<TokenId> w;
    for (unsigned char c : wc.word(i)) w.push_back(c);
    words.push_back(w);
    counts.push_back(wc.count(i));
  }
  TrainResult r;
  std::map<std::string, TokenId> ids;
  for (int b = 0; b < 256; ++b) {
    r.tokens.push_back(std::string(1, static_cast<char>(b)));
    ids[r.tokens.back()] = b;
  }
  while (r.tokens.size() < opt.vocab_size) {
    std::map<std::pair<TokenId, TokenId>, std::uint64_t> pairs;
    for (std::size_t w = 0; w < words.size(); ++w) {
      for (std::size_t k = 0; k + 1 < words[w].size(); ++k)
        pairs[{words[w][k], words[w][k + 1]}] += counts[w];
    }
    std::pair<TokenId, TokenId> best{};
    std::uint64_t best_count = 0;
    for (auto& [p, c] : pairs) {  // map order: smallest pair first wins ties
      if (opt.max_token_bytes &&
          r.tokens[p.first].size() + r.tokens[p.second].size() > opt.max_token_bytes)
        continue;
      if (c > best_count) best = p, best_count = c;
    }
    if (best_count == 0 || best_count < opt.min_frequency) break;
    std::string bytes = r.tokens[best.first] + r.tokens[best.second];
    auto it = ids.find(bytes);
    TokenId id;
    if (it != ids.end()) {
      id = it->second;
    } else {
      id = static_cast<TokenId>(r.tokens.size());
      r.tokens.push_back(bytes);
      ids[bytes] = id;
    }
    r.merges.push_back({best.first, best.second});
    for (auto& w : words) {
      std::vector<TokenId> out;
      for (std::size_t k = 0; k < w.size();) {
        if (k + 1 < w.size() && w[k] == best.first && w[k + 1] == best.second) {
          out.push_back(id);
          k += 2;
        } else {
          out.push_back(w[k++]);
        }
      }
      w = out;
    }
  }
  return r;
}

WordCounts count_text(std::string_view text, const std::string& pattern, unsigned threads = 1) {
  auto pre = text::PreTokenizer::named(pattern);
  REQUIRE(pre.ok());
  std::string_view texts[] = {text};
  return count_words(*pre, texts, threads);
}

std::vector<std::string> learned(const TrainResult& r) {
  return {r.tokens.begin() + 256, r.tokens.end()};
}

void check_same(const TrainResult& a, const TrainResult& b) {
  CHECK(a.tokens == b.tokens);
  REQUIRE(a.merges.size() == b.merges.size());
  for (std::size_t i = 0; i < a.merges.size(); ++i) {
    CHECK(a.merges[i].left == b.merges[i].left);
    CHECK(a.merges[i].right == b.merges[i].right);
  }
}

std::string random_text(std::mt19937& rng, std::size_t n, std::string_view alphabet) {
  std::string s;
  std::uniform_int_distribution<std::size_t> d(0, alphabet.size() - 1);
  for (std::size_t i = 0; i < n; ++i) s += alphabet[d(rng)];
  return s;
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("trainer: exact tiny case, a repeated word") {
  WordCounts wc;
  wc.add("aaabdaaabac", 1);
  TrainOptions opt;
  opt.vocab_size = 259;
  auto r = train_bpe(wc, opt);
  REQUIRE(r.ok());
  // Wikipedia's example: aa (count 4), then (aa, a)... with our tie-break:
  // counts aa=4, ab=2, ba=1... -> "aa"; then "aa"+"a"? pairs: (aa,a)=2,
  // (a,b)=2, ... smallest pair id wins: (a=97, b=98) < (aa=256, a).
  CHECK(learned(*r) == std::vector<std::string>{"aa", "ab", "aaab"});
  CHECK(r->merges[0].left == 'a');
  CHECK(r->merges[0].right == 'a');
  CHECK(r->merges[2].left == 256);
  CHECK(r->merges[2].right == 257);
}

TEST_CASE("trainer: overlapping pairs merge left to right") {
  WordCounts wc;
  wc.add("aaaaa", 3);  // aa aa a
  TrainOptions opt;
  opt.vocab_size = 300;
  auto r = train_bpe(wc, opt);
  REQUIRE(r.ok());
  // aaaaa -> [aa aa a]; (aa,aa) and (aa,a) tie at 3, the smaller pair
  // (256, 97) wins -> [aa aaa] -> [aaaaa]; then no pairs remain.
  CHECK(learned(*r) == std::vector<std::string>{"aa", "aaa", "aaaaa"});
  check_same(*r, naive_train(wc, opt));
}

TEST_CASE("trainer: a merge that recreates an existing token reuses its id") {
  WordCounts wc;
  wc.add("abc", 10);  // ab, abc via (ab, c)
  wc.add("xbc", 9);   // bc
  wc.add("zbc", 9);
  TrainOptions opt;
  opt.vocab_size = 270;
  auto r = train_bpe(wc, opt);
  REQUIRE(r.ok());
  check_same(*r, naive_train(wc, opt));
  auto toks = learned(*r);
  std::sort(toks.begin(), toks.end());
  CHECK(std::adjacent_find(toks.begin(), toks.end()) == toks.end());
}

TEST_CASE("trainer: min_frequency and max_token_bytes") {
  WordCounts wc;
  wc.add("hello", 5);
  wc.add("help", 1);
  TrainOptions opt;
  opt.vocab_size = 300;
  opt.min_frequency = 2;
  auto r = train_bpe(wc, opt);
  REQUIRE(r.ok());
  // he and el tie at 6: (e, l) = (101, 108) < (h, e) = (104, 101). Then hel
  // (6); lo ties (hel, l) at 5 and is the smaller pair; then hello; (hel, p)
  // is seen once, below --min-frequency 2.
  CHECK(learned(*r) == std::vector<std::string>{"el", "hel", "lo", "hello"});
  opt.min_frequency = 0;
  opt.max_token_bytes = 3;
  r = train_bpe(wc, opt);
  REQUIRE(r.ok());
  for (const auto& t : r->tokens) CHECK(t.size() <= 3);
  check_same(*r, naive_train(wc, opt));
}

TEST_CASE("trainer: vocabulary size below 256 is an error") {
  WordCounts wc;
  wc.add("ab");
  TrainOptions opt;
  opt.vocab_size = 100;
  CHECK_FALSE(train_bpe(wc, opt).ok());
}

TEST_CASE("trainer: identical to the naive reference on random corpora") {
  std::mt19937 rng(1234);
  for (int round = 0; round < 12; ++round) {
    std::string text = random_text(rng, 3000, round % 2 ? "ab c\n" : "abcab  xy.\n\t,'sé");
    for (const char* pat : {"gpt2", "cl100k", "o200k"}) {
      WordCounts wc = count_text(text, pat);
      for (std::uint64_t minf : {0, 3}) {
        TrainOptions opt;
        opt.vocab_size = 256 + 60;
        opt.min_frequency = minf;
        opt.max_token_bytes = round % 3 == 0 ? 4 : 0;
        auto fast = train_bpe(wc, opt);
        REQUIRE(fast.ok());
        check_same(*fast, naive_train(wc, opt));
      }
    }
  }
}

TEST_CASE("trainer: identical to the naive reference on real text") {
  std::string text = read_file(std::string(TOK_TEST_DATA) + "/train/sample.txt");
  REQUIRE(text.size() > 10000);
  text.resize(40000);
  for (const char* pat : {"gpt2", "o200k"}) {
    WordCounts wc = count_text(text, pat);
    TrainOptions opt;
    opt.vocab_size = 256 + 150;
    opt.min_frequency = pat[0] == 'g' ? 2 : 0;
    auto fast = train_bpe(wc, opt);
    REQUIRE(fast.ok());
    check_same(*fast, naive_train(wc, opt));
  }
}

TEST_CASE("trainer: learned vocabulary round-trips and encodes training words") {
  std::string text = read_file(std::string(TOK_TEST_DATA) + "/train/sample.txt");
  WordCounts wc = count_text(text, "o200k");
  TrainOptions opt;
  opt.vocab_size = 1000;
  auto r = train_bpe(wc, opt);
  REQUIRE(r.ok());
  auto table = MergeTable::from_ranks(r->tokens);
  REQUIRE(table.ok());
  auto pre = text::PreTokenizer::named("o200k");
  Tokenizer tk("t", std::move(table).value(), {*pre}, {});
  auto ids = tk.encode(text, SpecialMode::kText);
  REQUIRE(ids.ok());
  CHECK(ids->size() < text.size() / 2);
  auto back = tk.decode(*ids);
  REQUIRE(back.ok());
  CHECK(*back == text);
}

TEST_CASE("word counter: same counts for any thread count and chunking") {
  std::string text = read_file(std::string(TOK_TEST_DATA) + "/train/sample.txt");
  while (text.size() < 3 * kCountChunkBytes) text += text;
  for (const char* pat : {"gpt2", "cl100k", "o200k"}) {
    auto pre = text::PreTokenizer::named(pat);
    REQUIRE(pre.ok());
    auto cuts = count_chunk_cuts(*pre, text);
    CHECK(cuts.size() > 2);  // really cut
    std::string_view whole[] = {text};
    WordCounts one;
    pre->split(text, [&](std::string_view p) { one.add(p); });
    WordCounts t1 = count_words(*pre, whole, 1), t3 = count_words(*pre, whole, 3);
    REQUIRE(t1.size() == one.size());
    REQUIRE(t3.size() == one.size());
    for (std::size_t i = 0; i < one.size(); ++i) {
      CHECK(t1.find(one.word(i)) == one.count(i));
      CHECK(t3.find(one.word(i)) == one.count(i));
    }
  }
}

TEST_CASE("new special tokens: an empty or repeated one is refused, naming the argument") {
  CHECK(check_new_specials({"<|a|>", "<|b|>"}, "--special").ok());
  CHECK(check_new_specials({}, "specials").ok());
  Status empty = check_new_specials({"<|a|>", ""}, "specials");
  REQUIRE_FALSE(empty.ok());
  CHECK(empty.error().message == "specials: a special token cannot be empty");
  Status twice = check_new_specials({"<|a|>", "<|b|>", "<|a|>"}, "--special");
  REQUIRE_FALSE(twice.ok());
  CHECK(twice.error().message == "--special <|a|>: given twice");
}
