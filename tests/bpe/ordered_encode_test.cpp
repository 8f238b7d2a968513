// encode_in_order: chunks encoded on several threads come back complete and
// in order (the ids of one encode call, whatever the thread count), and a
// consumer's error stops the run and is what it returns.
#include <doctest/doctest.h>

#include <random>

#include "bpe/ordered_encode.hpp"
#include "formats/registry.hpp"

using namespace tok::bpe;
using tok::Status;

namespace {

std::string mixed_text(std::size_t bytes) {
  std::mt19937 rng(7);
  const char* frags[] = {"word ", "\n", "\nA", "\n\n", " \n", "x", "'s", "123", "\r\n", "  ",
                         "é", "日本語", "\nthe", "!", "\n\t", "<|endoftext|>"};
  std::string s;
  while (s.size() < bytes) s += frags[rng() % 16];
  return s;
}

}  // namespace

TEST_CASE("chunks encoded on 1..8 threads come back in order as the ids of one call") {
  auto tk = tok::formats::load_tokenizer("o200k_base");
  REQUIRE(tk.ok());
  std::string text = mixed_text(3u << 20);
  for (auto mode : {SpecialMode::kText, SpecialMode::kAllow}) {
    auto whole = tk->encode(text, mode);
    REQUIRE(whole.ok());
    // Small chunks: many more chunks than the window, so slots are reused.
    std::vector<std::size_t> cuts = tk->chunk_boundaries(text, 64u << 10, mode);
    REQUIRE(cuts.size() > 20);
    for (unsigned threads : {1u, 2u, 3u, 8u}) {
      std::vector<TokenId> got;
      std::size_t expected_chunk = 0;
      Status st = encode_in_order(*tk, text, cuts, mode, threads,
                                  [&](std::size_t c, std::span<const TokenId> ids) {
                                    CHECK(c == expected_chunk++);
                                    got.insert(got.end(), ids.begin(), ids.end());
                                    return Status{};
                                  });
      CHECK(st.ok());
      CHECK(expected_chunk == cuts.size() - 1);
      CHECK(got == *whole);
    }
  }
}

TEST_CASE("a consumer's error stops the run and is returned") {
  auto tk = tok::formats::load_tokenizer("cl100k_base");
  REQUIRE(tk.ok());
  std::string text = mixed_text(1u << 20);
  std::vector<std::size_t> cuts = tk->chunk_boundaries(text, 16u << 10, SpecialMode::kText);
  REQUIRE(cuts.size() > 10);
  std::size_t calls = 0;
  Status st = encode_in_order(*tk, text, cuts, SpecialMode::kText, 3,
                              [&](std::size_t c, std::span<const TokenId>) -> Status {
                                ++calls;
                                if (c == 4) return tok::make_error("stop at chunk {}", c);
                                return {};
                              });
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().message == "stop at chunk 4");
  CHECK(calls == 5);
}
