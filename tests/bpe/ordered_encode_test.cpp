// encode_in_order: chunks encoded on several threads come back complete and
// in order (the ids of one encode call, whatever the thread count), and a
// consumer's error stops the run and is what it returns, an exception on any
// thread is rethrown on the calling one.
#include <doctest/doctest.h>

#include <random>

#include "bpe/encoder.hpp"
#include "bpe/ordered_encode.hpp"
#include "formats/registry.hpp"

using namespace tok::bpe;
using tok::Status;

namespace {

std::string mixed_text(std::size_t bytes) {
  std::mt19937 rng(7);
  const char* frags[] = {"word ", "\n", "\nA", "\n\n",   " \n",   "x", "'s",   "123",
                         "\r\n",  "  ", "é",   "日本語", "\nthe", "!", "\n\t", "<|endoftext|>"};
  std::string s;
  while (s.size() < bytes) s += frags[rng() % 16];
  return s;
}

// The ids of text encoded on `threads` threads over `cuts`, in order.
std::vector<TokenId> threaded_ids(const Tokenizer& tk, std::string_view text,
                                  const std::vector<std::size_t>& cuts, unsigned threads) {
  std::vector<TokenId> got;
  Status st = encode_in_order(tk, text, cuts, SpecialMode::kText, threads,
                              [&](std::size_t, std::span<const TokenId> ids) {
                                got.insert(got.end(), ids.begin(), ids.end());
                                return Status{};
                              });
  CHECK(st.ok());
  return got;
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

// Random words: nearly every piece is new, so the threads' shared piece cache
// (sized for the text) fills early and the rest goes through each thread's
// own cache.
TEST_CASE("chunks on several threads stay exact when the shared piece cache is full") {
  std::mt19937 rng(11);
  std::string text;
  while (text.size() < (3u << 20)) {
    text += rng() % 16 == 0 ? ".\n" : " ";  // lines: where chunks may be cut
    for (std::size_t k = 3 + rng() % 10; k > 0; --k) text += static_cast<char>('a' + rng() % 26);
  }
  for (std::string enc : {"cl100k_base", "gpt2"}) {
    CAPTURE(enc);
    auto tk = tok::formats::load_tokenizer(enc);
    REQUIRE(tk.ok());
    auto whole = tk->encode(text, SpecialMode::kText);
    REQUIRE(whole.ok());
    std::vector<std::size_t> cuts = tk->chunk_boundaries(text, 64u << 10, SpecialMode::kText);
    REQUIRE(cuts.size() > 20);
    for (unsigned threads : {2u, 3u}) CHECK(threaded_ids(*tk, text, cuts, threads) == *whole);
  }
}

TEST_CASE("parallel cuts: 1 MiB chunks, then quarters for the last stretch, at piece boundaries") {
  auto tk = tok::formats::load_tokenizer("o200k_base");
  REQUIRE(tk.ok());
  std::string text = mixed_text(9u << 20);
  for (unsigned threads : {1u, 2u, 4u}) {
    std::vector<std::size_t> cuts = tk->parallel_boundaries(text, threads, SpecialMode::kText);
    REQUIRE(cuts.front() == 0);
    REQUIRE(cuts.back() == text.size());
    const std::size_t chunk = Tokenizer::kParallelChunk;
    std::size_t small = 0;
    for (std::size_t c = 0; c + 1 < cuts.size(); ++c) {
      std::size_t len = cuts[c + 1] - cuts[c];
      bool tail = text.size() - cuts[c] <= threads * chunk;
      // A cut lands at the first boundary at or after its target.
      if (c + 2 < cuts.size()) CHECK(len >= (tail ? chunk / 4 : chunk));
      CHECK(len < (tail ? chunk / 4 : chunk) + 4096);
      small += tail;
    }
    CHECK(small >= 4 * threads - 1);
    // The cuts are guaranteed boundaries: chunk by chunk is the whole.
    std::vector<TokenId> got;
    for (std::size_t c = 0; c + 1 < cuts.size(); ++c) {
      auto part = tk->encode(std::string_view(text).substr(cuts[c], cuts[c + 1] - cuts[c]),
                             SpecialMode::kText);
      REQUIRE(part.ok());
      got.insert(got.end(), part->begin(), part->end());
    }
    CHECK(got == *tk->encode(text, SpecialMode::kText));
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

TEST_CASE("a piece too long on any thread is the call's error once every thread has stopped") {
  // Three chunks, each one piece longer than the encoder takes: whichever
  // threads encode them fail, the calling one or the pool's workers, and the
  // Tokenizer returns that as a Status (no exception crosses its boundary).
  auto tk = tok::formats::load_tokenizer("cl100k_base");
  REQUIRE(tk.ok());
  const std::string run(kMaxPieceBytes + 1, 'a');
  const std::string text = run + " " + run + " " + run;
  const std::vector<std::size_t> cuts = {0, run.size(), 2 * run.size() + 1, text.size()};
  for (unsigned threads : {1u, 3u}) {
    std::size_t consumed = 0;
    Status st = Status{};
    CHECK_NOTHROW(st = encode_in_order(*tk, text, cuts, SpecialMode::kText, threads,
                                       [&](std::size_t, std::span<const TokenId>) {
                                         ++consumed;
                                         return Status{};
                                       }));
    REQUIRE_FALSE(st.ok());
    CHECK(st.error().message.find("a piece of") != std::string::npos);
    CHECK(consumed == 0);
  }
}

// Indented code: nearly every line starts with blanks, so the boundary after
// a newline (before a letter) is rare; the one before a newline that follows
// a letter or digit is what lets the last stretch be cut finely.
TEST_CASE("parallel cuts in indented code: quarters for the last stretch too, exact") {
  auto tk = tok::formats::load_tokenizer("cl100k_base");
  REQUIRE(tk.ok());
  std::mt19937 rng(5);
  std::string text;
  while (text.size() < (5u << 20)) {
    switch (rng() % 4) {
      case 0: text += "    int x_" + std::to_string(rng() % 1000) + " = f(y);\n"; break;
      case 1: text += "        // the value of x, before it is used\n"; break;
      case 2: text += "        return total + 1\n"; break;
      default: text += "    }\n"; break;
    }
  }
  const unsigned threads = 2;
  std::vector<std::size_t> cuts = tk->parallel_boundaries(text, threads, SpecialMode::kText);
  const std::size_t chunk = Tokenizer::kParallelChunk;
  std::size_t small = 0;
  for (std::size_t c = 0; c + 1 < cuts.size(); ++c) {
    std::size_t len = cuts[c + 1] - cuts[c];
    bool tail = text.size() - cuts[c] <= threads * chunk;
    CHECK(len < (tail ? chunk / 4 : chunk) + 4096);
    small += tail;
  }
  CHECK(small >= 4 * threads - 1);
  CHECK(threaded_ids(*tk, text, cuts, threads) == *tk->encode(text, SpecialMode::kText));
}
