// SharedPieceCache: answers are exact, an insert that finds the piece there
// keeps the first record, a full arena refuses inserts without losing what
// it holds, and threads inserting and finding at once only ever see whole
// records.
#include "bpe/shared_piece_cache.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "bpe/hash.hpp"

using tok::bpe::SharedPieceCache;
using tok::bpe::TokenId;

namespace {

std::string piece_of(std::size_t i) {
  std::string p = std::to_string(i * 2654435761u);
  p.append(i % 23, 'x');  // lengths vary
  return p;
}

// Tokens that depend on the piece: a wrong record gives wrong tokens.
std::vector<TokenId> tokens_of(std::size_t i) {
  std::vector<TokenId> t(1 + i % 7);
  for (std::size_t k = 0; k < t.size(); ++k) t[k] = static_cast<TokenId>(i * 7 + k);
  return t;
}

bool insert(SharedPieceCache& c, std::size_t i, SharedPieceCache::InsertCursor& cur) {
  std::string p = piece_of(i);
  auto t = tokens_of(i);
  return c.insert(p, tok::bpe::hash_bytes(p), t.data(), t.size(), cur);
}

// Whether piece i is found; when found, its tokens must be right.
bool holds(const SharedPieceCache& c, std::size_t i) {
  std::string p = piece_of(i);
  std::size_t n = 0;
  const TokenId* got = c.find(p, tok::bpe::hash_bytes(p), &n);
  if (!got) return false;
  REQUIRE(std::vector<TokenId>(got, got + n) == tokens_of(i));
  return true;
}

}  // namespace

TEST_CASE("shared piece cache: exact answers until full, then refuses and keeps them") {
  SharedPieceCache c(1 << 20);  // 2^16 slots
  SharedPieceCache::InsertCursor cur;
  std::size_t added = 0;
  while (insert(c, added, cur)) ++added;
  // Full: the arena holds at most slots / 2 of the smallest records.
  CHECK(added > 1000);
  CHECK(added <= c.slots() / 2);
  for (std::size_t i = 0; i < added; ++i) CHECK(holds(c, i));
  CHECK_FALSE(holds(c, added));  // the refused one
  CHECK_FALSE(holds(c, added + 1));
  CHECK_FALSE(insert(c, added + 1, cur));
}

TEST_CASE("shared piece cache keeps the first record of a piece and skips what it cannot hold") {
  SharedPieceCache c(0);
  SharedPieceCache::InsertCursor cur;
  std::string p = "hello";
  std::uint64_t h = tok::bpe::hash_bytes(p);
  TokenId a[2] = {1, 2}, b[1] = {9};
  CHECK(c.insert(p, h, a, 2, cur));
  CHECK(c.insert(p, h, b, 1, cur));
  std::size_t n = 0;
  const TokenId* got = c.find(p, h, &n);
  REQUIRE(got);
  CHECK(std::vector<TokenId>(got, got + n) == std::vector<TokenId>{1, 2});
  // Too long, empty or no tokens: not cached, and not a sign of a full cache.
  std::string big(SharedPieceCache::kMaxPieceBytes + 1, 'y');
  CHECK(c.insert(big, tok::bpe::hash_bytes(big), a, 1, cur));
  CHECK(c.find(big, tok::bpe::hash_bytes(big), &n) == nullptr);
  CHECK(c.insert("", tok::bpe::hash_bytes(""), a, 1, cur));
  CHECK(c.insert("z", tok::bpe::hash_bytes("z"), a, 0, cur));
  CHECK(c.find("z", tok::bpe::hash_bytes("z"), &n) == nullptr);
  // The longest piece and the most tokens a record holds.
  std::string longest(SharedPieceCache::kMaxPieceBytes, 'q');
  std::vector<TokenId> many(SharedPieceCache::kMaxTokens, 3);
  CHECK(c.insert(longest, tok::bpe::hash_bytes(longest), many.data(), many.size(), cur));
  got = c.find(longest, tok::bpe::hash_bytes(longest), &n);
  REQUIRE(got);
  CHECK(std::vector<TokenId>(got, got + n) == many);
}

TEST_CASE(
    "shared piece cache: threads inserting the same pieces at once find every piece exactly") {
  constexpr std::size_t kPieces = 20000;
  constexpr unsigned kThreads = 4;
  SharedPieceCache c(kPieces * 24 * 8);  // room for every piece
  std::atomic<std::size_t> wrong{0}, refused{0};
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < kThreads; ++t) {
    pool.emplace_back([&, t] {
      SharedPieceCache::InsertCursor cur;
      // Each thread walks the pieces from a different start, finding then
      // inserting, as the encoder does.
      for (std::size_t k = 0; k < kPieces; ++k) {
        std::size_t i = (k + t * kPieces / kThreads) % kPieces;
        std::string p = piece_of(i);
        std::uint64_t h = tok::bpe::hash_bytes(p);
        std::size_t n = 0;
        if (const TokenId* got = c.find(p, h, &n)) {
          if (std::vector<TokenId>(got, got + n) != tokens_of(i)) ++wrong;
          continue;
        }
        auto toks = tokens_of(i);
        if (!c.insert(p, h, toks.data(), toks.size(), cur)) ++refused;
      }
    });
  }
  for (auto& th : pool) th.join();
  CHECK(wrong == 0);
  CHECK(refused == 0);
  for (std::size_t i = 0; i < kPieces; ++i) CHECK(holds(c, i));
}
