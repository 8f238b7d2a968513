// merge_long_piece gives exactly the heap merge's tokens: on every shipped
// vocabulary form (tiktoken ranks, Hugging Face merge lists, SentencePiece
// scores with byte fallback) and on random small vocabularies whose ranks
// tie and do not follow their tokens' parts (the cases its sweep order and
// lower-rank resumption exist for).
#include "bpe/long_piece.hpp"

#include <doctest/doctest.h>

#include <random>

#include "bpe/encoder.hpp"
#include "formats/gguf.hpp"
#include "formats/gguf_vocab.hpp"
#include "formats/registry.hpp"

using namespace tok::bpe;

namespace {

std::vector<TokenId> heap(const MergeTable& t, std::string_view piece, std::uint32_t max_rank) {
  EncodeScratch s;
  std::vector<TokenId> out;
  merge_symbols(t, piece, max_rank, true, out, s);
  return out;
}

std::vector<TokenId> long_piece(const MergeTable& t, std::string_view piece,
                                std::uint32_t max_rank) {
  PairCache cache;
  std::vector<TokenId> out;
  REQUIRE(merge_long_piece(t, piece, max_rank, out, cache));
  return out;
}

// Random text of at least kLongPieceBytes from a few units.
std::string random_text(std::mt19937& rng, const std::vector<std::string>& units,
                        std::size_t bytes) {
  std::string s;
  while (s.size() < bytes) s += units[rng() % units.size()];
  return s;
}

void check_agrees(const MergeTable& t, const std::vector<std::string>& units, int texts,
                  std::mt19937& rng) {
  for (int i = 0; i < texts; ++i) {
    std::string s = random_text(rng, units, kLongPieceBytes + rng() % 3000);
    std::uint32_t max_rank = i % 4 == 3 ? static_cast<std::uint32_t>(rng() % 2000) : kNoRank;
    REQUIRE(long_piece(t, s, max_rank) == heap(t, s, max_rank));
  }
}

}  // namespace

TEST_CASE("long pieces: shorter pieces are left to the other paths") {
  auto tk = tok::formats::load_tokenizer("r50k_base");
  REQUIRE(tk.ok());
  PairCache cache;
  std::vector<TokenId> out;
  CHECK_FALSE(
      merge_long_piece(tk->table(), std::string(kLongPieceBytes - 1, 'a'), kNoRank, out, cache));
  CHECK(out.empty());
}

TEST_CASE("long pieces equal the heap merge on tiktoken vocabularies") {
  std::mt19937 rng(5);
  for (const char* enc : {"o200k_base", "cl100k_base", "r50k_base"}) {
    auto tk = tok::formats::load_tokenizer(enc);
    REQUIRE(tk.ok());
    check_agrees(tk->table(), {"a"}, 2, rng);
    check_agrees(tk->table(), {"a", "b", "e", "r", "th", "ing", "q", "Z"}, 8, rng);
    check_agrees(tk->table(), {"é", "中", "日本", "😀", "\xff", "\x80", "a"}, 8, rng);
    std::string bytes(5000, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    CHECK(long_piece(tk->table(), bytes, kNoRank) == heap(tk->table(), bytes, kNoRank));
  }
}

TEST_CASE("long pieces equal the heap merge on merge-list and SentencePiece vocabularies") {
  std::mt19937 rng(9);
  for (const char* enc : {"qwen3", "mistral"}) {  // byte-level merges; chars + byte fallback
    auto tk = tok::formats::load_tokenizer(enc);
    REQUIRE_MESSAGE(tk.ok(), tk.error().message);
    check_agrees(tk->table(), {"a", "b", "e", "r", "▁", "ing", "é", "中", "\xff"}, 8, rng);
  }
  std::string path = std::string(TOK_TEST_DATA) + "/llama.cpp-vocab/ggml-vocab-llama-spm.gguf";
  auto file = tok::formats::GgufFile::open(path);
  REQUIRE(file.ok());
  auto spm = tok::formats::load_gguf_tokenizer(*file, "llama-spm");  // scores, byte fallback
  REQUIRE_MESSAGE(spm.ok(), spm.error().message);
  check_agrees(spm->table(), {"a", "b", "e", "r", "▁", "ing", "é", "中", "\xff", "\xe4"}, 8, rng);
}

TEST_CASE("long pieces equal the heap merge on random vocabularies with tied, unordered ranks") {
  // Tokens over a 3-letter alphabet with random priorities from a small
  // range: many ties between different tokens, and tokens ranked before
  // their parts (a merge then makes a pair of a lower rank than its own).
  std::mt19937 rng(17);
  for (int round = 0; round < 40; ++round) {
    std::vector<std::optional<std::string>> tokens;
    for (int b = 0; b < 256; ++b) tokens.push_back(std::string(1, static_cast<char>(b)));
    std::vector<std::uint32_t> priority(256, kNoRank);
    std::vector<std::string> seen;
    for (int k = 0; k < 30; ++k) {
      std::string t;
      for (std::size_t len = 2 + rng() % 4; t.size() < len;)
        t += static_cast<char>('a' + rng() % 3);
      if (std::find(seen.begin(), seen.end(), t) != seen.end()) continue;
      seen.push_back(t);
      tokens.push_back(t);
      priority.push_back(static_cast<std::uint32_t>(rng() % 12));
    }
    MergeTable::Options options;
    options.whole_piece_lookup = false;
    auto ranked = MergeTable::from_priorities(tokens, priority, options);
    REQUIRE(ranked.ok());
    check_agrees(*ranked, {"a", "b", "c"}, 3, rng);
    // The merge-list form of random merges (listed in random order).
    std::vector<MergeTable::Merge> merges;
    for (TokenId id = 256; id < tokens.size(); ++id) {
      const std::string& t = *tokens[id];
      for (std::size_t cut = 1; cut < t.size(); ++cut) {
        auto left = std::find(tokens.begin(), tokens.end(), std::optional(t.substr(0, cut)));
        auto right = std::find(tokens.begin(), tokens.end(), std::optional(t.substr(cut)));
        if (left != tokens.end() && right != tokens.end()) {
          merges.push_back({static_cast<TokenId>(left - tokens.begin()),
                            static_cast<TokenId>(right - tokens.begin())});
        }
      }
    }
    std::shuffle(merges.begin(), merges.end(), rng);
    auto listed = MergeTable::from_merges(tokens, merges, options);
    REQUIRE_MESSAGE(listed.ok(), listed.error().message);
    check_agrees(*listed, {"a", "b", "c"}, 3, rng);
  }
}
