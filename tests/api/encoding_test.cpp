// The public API (include/tok/tok.hpp): exact ids for a shipped vocabulary,
// agreement with the Tokenizer it wraps, count == encode().size(), decode
// round trips, the special-token modes, and errors as Results.
#include <doctest/doctest.h>

#include <string>
#include <thread>
#include <vector>

#include "formats/registry.hpp"
#include "tok/tok.hpp"

namespace {

const tok::Encoding& o200k() {
  static const tok::Encoding enc = [] {
    auto loaded = tok::Encoding::load("o200k_base");
    REQUIRE_MESSAGE(loaded.ok(), (loaded.ok() ? "" : loaded.error().message));
    return std::move(loaded).value();
  }();
  return enc;
}

}  // namespace

TEST_CASE("a shipped vocabulary by name: exact ids, count, decode") {
  const tok::Encoding& enc = o200k();
  CHECK(enc.name() == "o200k_base");
  CHECK(enc.vocab_size() == 200019);
  auto ids = enc.encode("hello world");
  REQUIRE(ids.ok());
  CHECK(*ids == std::vector<tok::TokenId>{24912, 2375});
  auto n = enc.count("hello world");
  REQUIRE(n.ok());
  CHECK(*n == 2);
  auto text = enc.decode(*ids);
  REQUIRE(text.ok());
  CHECK(*text == "hello world");
}

TEST_CASE("the facade gives the ids of the tokenizer it wraps") {
  std::string text = "Façade: déjà vu, 42 tokens\n\tand  spaces — 日本語 too.";
  for (int i = 0; i < 6; ++i) text += text;
  auto inner = tok::formats::load_tokenizer("o200k_base");
  REQUIRE(inner.ok());
  auto want = inner->encode(text, tok::bpe::SpecialMode::kError);
  REQUIRE(want.ok());
  auto got = o200k().encode(text);
  REQUIRE(got.ok());
  CHECK(*got == *want);
  for (unsigned threads : {1u, 4u}) {
    auto n = o200k().count(text, tok::SpecialMode::kError, threads);
    REQUIRE(n.ok());
    CHECK(*n == want->size());
  }
}

TEST_CASE("special tokens: refused, allowed, or plain text") {
  const tok::Encoding& enc = o200k();
  std::string text = "a<|endoftext|>b";
  auto refused = enc.encode(text);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message.find("<|endoftext|>") != std::string::npos);
  CHECK_FALSE(enc.count(text).ok());
  auto allowed = enc.encode(text, tok::SpecialMode::kAllow);
  REQUIRE(allowed.ok());
  CHECK(*allowed == std::vector<tok::TokenId>{64, 199999, 65});
  auto plain = enc.encode(text, tok::SpecialMode::kText);
  REQUIRE(plain.ok());
  CHECK(plain->size() > 3);
  auto back = enc.decode(*plain);
  REQUIRE(back.ok());
  CHECK(*back == text);
}

TEST_CASE("errors are Results naming what is wrong") {
  auto missing = tok::Encoding::load("o200k_bsae");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message.find("o200k_bsae") != std::string::npos);
  std::vector<tok::TokenId> bad{24912, 4000000};
  auto decoded = o200k().decode(bad);
  REQUIRE_FALSE(decoded.ok());
  CHECK(decoded.error().message.find("4000000") != std::string::npos);
}

TEST_CASE("copies share one vocabulary and serve threads at once") {
  tok::Encoding copy = o200k();
  std::vector<std::vector<tok::TokenId>> out(4);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < out.size(); ++i) {
    threads.emplace_back([&, i] {
      auto ids = (i % 2 ? copy : o200k()).encode("the same text on every thread");
      if (ids.ok()) out[i] = *ids;
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& ids : out) CHECK(ids == out[0]);
  CHECK_FALSE(out[0].empty());
}
