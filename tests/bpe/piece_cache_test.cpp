// PieceCache: answers are exact, growth keeps what was cached, and the table
// stays bounded (cleared at kMaxEntries).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "bpe/hash.hpp"
#include "bpe/piece_cache.hpp"

using tok::bpe::PieceCache;
using tok::bpe::TokenId;

namespace {

std::string piece_of(std::size_t i) { return "piece-" + std::to_string(i * 2654435761u); }

// Tokens that depend on the piece: a wrong slot gives wrong tokens.
std::vector<TokenId> tokens_of(std::size_t i) {
  std::vector<TokenId> t(1 + i % 5);
  for (std::size_t k = 0; k < t.size(); ++k) t[k] = static_cast<TokenId>(i * 7 + k);
  return t;
}

bool holds(const PieceCache& c, std::size_t i) {
  std::string p = piece_of(i);
  std::size_t n = 0;
  const TokenId* got = c.find(p, tok::bpe::hash_bytes(p), &n);
  if (!got) return false;
  std::vector<TokenId> want = tokens_of(i);
  REQUIRE(std::vector<TokenId>(got, got + n) == want);  // present means right
  return true;
}

}  // namespace

TEST_CASE("piece cache keeps every entry while it grows, then clears at its bound") {
  PieceCache c;
  std::size_t n = PieceCache::kMaxEntries;
  for (std::size_t i = 0; i < n; ++i) {
    std::string p = piece_of(i);
    auto t = tokens_of(i);
    c.insert(p, tok::bpe::hash_bytes(p), t.data(), t.size());
    // Right after each doubling, everything inserted so far is still there.
    if ((i & (i + 1)) == 0 && i >= 255) {
      for (std::size_t k = 0; k <= i; k += 1 + k / 64) CHECK(holds(c, k));
    }
  }
  for (std::size_t k = 0; k < n; k += 97) CHECK(holds(c, k));
  CHECK_FALSE(holds(c, n + 1));
  // One more entry clears it: bounded memory; what follows is cached again.
  std::string p = piece_of(n);
  auto t = tokens_of(n);
  c.insert(p, tok::bpe::hash_bytes(p), t.data(), t.size());
  CHECK(holds(c, n));
  CHECK_FALSE(holds(c, 0));
}

TEST_CASE("piece cache ignores empty and oversized pieces") {
  PieceCache c;
  TokenId t[1] = {5};
  std::string big(PieceCache::kMaxPieceBytes + 1, 'x');
  c.insert(big, tok::bpe::hash_bytes(big), t, 1);
  c.insert("", tok::bpe::hash_bytes(""), t, 1);
  std::size_t n = 0;
  CHECK(c.find(big, tok::bpe::hash_bytes(big), &n) == nullptr);
}

TEST_CASE("a reserved piece cache keeps every entry up to its bound, then clears, as a grown one") {
  for (std::size_t want :
       {std::size_t{0}, std::size_t{5000}, std::size_t{1} << 17, PieceCache::kMaxEntries * 4}) {
    PieceCache c;
    c.reserve(want);
    c.reserve(want * 2);  // only before first use: the second call changes nothing
    std::size_t n = PieceCache::kMaxEntries;
    for (std::size_t i = 0; i < n; ++i) {
      std::string p = piece_of(i);
      auto t = tokens_of(i);
      c.insert(p, tok::bpe::hash_bytes(p), t.data(), t.size());
    }
    std::size_t kept = 0;
    for (std::size_t i = 0; i < n; ++i) kept += holds(c, i);
    CHECK_MESSAGE(kept == n, "reserve(" << want << ")");
    std::string p = piece_of(n);
    auto t = tokens_of(n);
    c.insert(p, tok::bpe::hash_bytes(p), t.data(), t.size());
    CHECK(holds(c, n));
    CHECK_FALSE(holds(c, 0));  // cleared at the bound
  }
}
