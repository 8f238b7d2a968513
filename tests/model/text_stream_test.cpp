#include <doctest/doctest.h>

#include "model/sampler.hpp"
#include "model/text_stream.hpp"

using namespace tok::model;

TEST_CASE("TextStream never splits a UTF-8 character across writes") {
  TextStream s;
  std::string e = "\xC3\xA9";  // é
  CHECK(s.push("caf") == "caf");
  CHECK(s.push(e.substr(0, 1)) == "");
  CHECK(s.push(e.substr(1)) == e);
  std::string emoji = "\xF0\x9F\x98\x80";
  CHECK(s.push(emoji.substr(0, 3)) == "");
  CHECK(s.push(emoji.substr(3) + "!") == emoji + "!");
  CHECK(s.finish() == "");
}

TEST_CASE("TextStream withholds stop strings and a possible start of one") {
  TextStream s({"\n\n", "END"});
  CHECK(s.push("Hello E") == "Hello ");
  CHECK(s.push("N") == "");
  CHECK(s.push("D more") == "");
  CHECK(s.stopped());
  CHECK(s.text() == "Hello ");
  TextStream t({"END"});
  CHECK(t.push("EN") == "");
  CHECK(t.push("x") == "ENx");
  CHECK(t.finish() == "");
}

TEST_CASE("Sampler: greedy takes the argmax, seeds reproduce, top-k 1 is greedy") {
  std::vector<float> logits{0.1f, 2.0f, 1.9f, -1.0f};
  SamplerParams p;
  p.greedy = true;
  CHECK(Sampler(p).sample(logits, {}) == 1);
  p.greedy = false;
  p.temperature = 1.0f;
  p.top_k = 0;
  p.top_p = 1.0f;
  p.min_p = 0.0f;
  p.seed = 42;
  std::vector<tok::bpe::TokenId> a, b;
  Sampler s1(p), s2(p);
  for (int i = 0; i < 50; ++i) {
    a.push_back(s1.sample(logits, {}));
    b.push_back(s2.sample(logits, {}));
  }
  CHECK(a == b);
  p.top_k = 1;
  Sampler s3(p);
  for (int i = 0; i < 20; ++i) CHECK(s3.sample(logits, {}) == 1);
  // The repetition penalty turns 2.0 into 2.0 / 1.5 < 1.9.
  p.top_k = 1;
  p.repeat_penalty = 1.5f;
  std::vector<tok::bpe::TokenId> hist{1};
  CHECK(Sampler(p).sample(logits, hist) == 2);
  auto top = top_logprobs(logits, 2);
  REQUIRE(top.size() == 2);
  CHECK(top[0].first == 1);
  CHECK(top[0].second == doctest::Approx(logprob_of(logits, 1)));
}
