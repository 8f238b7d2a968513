// MergeTable::serialize / deserialize: the image round-trips every answer the
// encoder asks for, and a damaged image is refused.
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <random>

#include "bpe/encoder.hpp"
#include "bpe/merge_table.hpp"
#include "tiny_merge_list.hpp"
#include "formats/registry.hpp"

using namespace tok::bpe;

namespace {

std::vector<TokenId> encode_all(const MergeTable& t, const std::vector<std::string>& pieces) {
  EncodeScratch s;
  std::vector<TokenId> out;
  for (const auto& p : pieces) encode_piece(t, p, out, s);
  return out;
}

}  // namespace

TEST_CASE("merge table image: round trip of a real vocabulary") {
  auto tk = tok::formats::load_tokenizer("cl100k_base");
  REQUIRE(tk.ok());
  const MergeTable& t = tk->table();
  std::string image = t.serialize();
  auto back = MergeTable::deserialize(image);
  REQUIRE(back.ok());
  REQUIRE(back->size() == t.size());
  for (TokenId id = 0; id < t.size(); id += 7) {
    REQUIRE(back->has(id) == t.has(id));
    if (!t.has(id)) continue;
    CHECK(back->bytes(id) == t.bytes(id));
    CHECK(back->find(t.bytes(id)) == id);
    CHECK(back->priority(id) == t.priority(id));
  }
  CHECK(back->pairs_by_id() == t.pairs_by_id());
  std::mt19937 rng(5);
  const char* alphabet[] = {"a", "b", "e", "r", "t", " ", "\n", "1", "é", "中", "😀", "ing", "\xff"};
  std::vector<std::string> pieces;
  for (int i = 0; i < 500; ++i) {
    std::string s;
    for (int k = 1 + static_cast<int>(rng() % 40); k > 0; --k) s += alphabet[rng() % 13];
    pieces.push_back(s);
  }
  CHECK(encode_all(*back, pieces) == encode_all(t, pieces));
}

// The ranked form rules pairs out with a Bloom filter before its index (kept
// in the image): it must never rule out a real merge, nor let a non-token in.
TEST_CASE("ranked form: every split of every token is a merge, before and after the image") {
  for (const char* name : {"cl100k_base", "o200k_base"}) {
    // Built here, not read from the image cache (which an older build may
    // have written).
    ::setenv("TOK_TABLE_CACHE", "0", 1);
    auto tk = tok::formats::load_tokenizer(name);
    ::unsetenv("TOK_TABLE_CACHE");
    REQUIRE(tk.ok());
    const MergeTable& t = tk->table();
    auto back = MergeTable::deserialize(t.serialize());
    REQUIRE(back.ok());
    std::size_t merges = 0, refused = 0;
    for (TokenId id = 0; id < t.size(); ++id) {
      if (!t.has(id)) continue;
      std::string_view b = t.bytes(id);
      for (std::size_t k = 1; k < b.size(); ++k) {
        TokenId l = t.find(b.substr(0, k)), r = t.find(b.substr(k));
        if (l == kNoToken || r == kNoToken) continue;
        ++merges;
        const MergeTable* tables[] = {&t, &*back};
        for (const MergeTable* m : tables) {
          PairInfo p = m->pair(l, r, b);
          if (p.rank != t.priority(id) || p.result != id) {
            FAIL_CHECK(std::string(name) << ": pair " << l << " + " << r << " gave " << p.result);
          }
        }
      }
      // Pairs whose joined bytes are no token: the token and a byte that
      // extends it to no token.
      for (int c = 0; c < 256; c += 37) {
        std::string joined(b);
        joined += static_cast<char>(c);
        if (t.find(joined) != kNoToken) continue;
        ++refused;
        CHECK(t.pair(id, t.byte_token(static_cast<unsigned char>(c)), joined).rank == kNoRank);
        CHECK(back->pair(id, t.byte_token(static_cast<unsigned char>(c)), joined).rank == kNoRank);
      }
    }
    CHECK(merges > 200000);
    CHECK(refused > 100000);
  }
}

TEST_CASE("byte-pair table: the index's answer for every two bytes, built and loaded") {
  auto tk = tok::formats::load_tokenizer("cl100k_base");
  REQUIRE(tk.ok());
  const MergeTable& t = tk->table();
  auto back = MergeTable::deserialize(t.serialize());
  REQUIRE(back.ok());
  const MergeTable* tables[] = {&t, &*back};
  for (const MergeTable* m : tables) {
    const TokenId* bp = m->byte_pairs();
    REQUIRE(bp != nullptr);
    std::size_t tokens = 0;
    for (unsigned k = 0; k < 65536; ++k) {
      char two[2] = {static_cast<char>(k & 0xff), static_cast<char>(k >> 8)};
      TokenId want = t.find(std::string_view(two, 2));
      tokens += want != kNoToken;
      if (bp[k] != want) FAIL_CHECK("bytes " << (k & 0xff) << " " << (k >> 8) << ": " << bp[k]);
    }
    CHECK(tokens > 1000);
  }
  // A merge list and SentencePiece characters have none: their first round
  // is not a question about two bytes.
  auto v = testing::tiny_merge_list();
  auto list = MergeTable::from_merges(v.tokens, v.merges, v.options);
  REQUIRE(list.ok());
  CHECK(list->byte_pairs() == nullptr);
  std::vector<std::optional<std::string>> chars;
  for (int b = 0; b < 256; ++b) chars.push_back(std::string(1, static_cast<char>(b)));
  chars.push_back("ab");
  MergeTable::Options sp;
  sp.initial = InitialSymbols::kCharsByteFallback;
  auto sp_table = MergeTable::from_priorities(chars, std::vector<std::uint32_t>(257, 0), sp);
  REQUIRE(sp_table.ok());
  CHECK(sp_table->byte_pairs() == nullptr);
}

TEST_CASE("byte-pair table: ranks that are not ids") {
  // Tokens: the 256 bytes, then "ab", "xa", "bc", "abc", "ca", with
  // priorities that run against the ids: the short merge's first round (the
  // byte-pair table) must give what the heap (the index) gives.
  std::vector<std::optional<std::string>> tokens;
  std::vector<std::uint32_t> priority;
  for (int b = 0; b < 256; ++b) {
    tokens.push_back(std::string(1, static_cast<char>(b)));
    priority.push_back(1000 + static_cast<std::uint32_t>(b));
  }
  for (const char* x : {"ab", "xa", "bc", "abc", "ca"}) tokens.push_back(std::string(x));
  for (std::uint32_t p : {7u, 3u, 5u, 1u, 6u}) priority.push_back(p);
  auto t = MergeTable::from_priorities(tokens, priority, {});
  REQUIRE(t.ok());
  REQUIRE(t->byte_pairs() != nullptr);
  CHECK(t->byte_pairs()['a' | ('b' << 8)] == 256);
  CHECK(t->rank_of(256) == 7);
  std::mt19937 rng(5);
  for (int i = 0; i < 2000; ++i) {
    std::string s;
    std::size_t n = 1 + rng() % 40;
    while (s.size() < n) s += "abcx"[rng() % 4];
    EncodeScratch a, b;
    std::vector<TokenId> small, heap;
    merge_symbols(*t, s, kNoRank, false, small, a);
    merge_symbols(*t, s, kNoRank, true, heap, b);
    CHECK_MESSAGE(small == heap, s);
  }
}

TEST_CASE("merge table image: the merge-list form round-trips too") {
  auto v = testing::tiny_merge_list();
  auto t = MergeTable::from_merges(v.tokens, v.merges, v.options);
  REQUIRE(t.ok());
  auto back = MergeTable::deserialize(t->serialize());
  REQUIRE(back.ok());
  CHECK_FALSE(back->ranked());
  CHECK_FALSE(back->options().whole_piece_lookup);
  CHECK(encode_all(*back, {"abc", "abcab"}) == std::vector<TokenId>{'a', 258, 'a', 258, 256});
}

TEST_CASE("merge table image: read in place, the table keeps the image alive") {
  auto tk = tok::formats::load_tokenizer("cl100k_base");
  REQUIRE(tk.ok());
  const MergeTable& t = tk->table();
  std::vector<std::string> pieces = {"hello", " world", "tokenization", "\xe4\xb8\xad\xe6\x96\x87"};
  std::optional<MergeTable> in_place;
  {
    // 8-aligned storage, as a mapped or huge-page buffer is.
    auto image = std::make_shared<std::vector<std::uint64_t>>();
    std::string bytes = t.serialize();
    image->resize((bytes.size() + 7) / 8);
    std::memcpy(image->data(), bytes.data(), bytes.size());
    std::string_view view(reinterpret_cast<const char*>(image->data()), bytes.size());
    auto back = MergeTable::deserialize(view, image);
    REQUIRE(back.ok());
    // Viewing, not copying: the arena's bytes are inside the image.
    const char* first = back->bytes(0).data();
    CHECK((first >= view.data() && first < view.data() + view.size()));
    in_place = std::move(back).value();
  }  // only the table holds the image now
  MergeTable copy = *in_place;
  in_place.reset();
  CHECK(copy.size() == t.size());
  CHECK(copy.find("hello") == t.find("hello"));
  CHECK(encode_all(copy, pieces) == encode_all(t, pieces));
  // A copy of an owned (built) table owns its own arrays.
  std::optional<MergeTable> owned = t;
  MergeTable copy2 = *owned;
  owned.reset();
  CHECK(encode_all(copy2, pieces) == encode_all(t, pieces));
}

TEST_CASE("merge table image: damage is refused, never trusted") {
  std::vector<std::string> toks;
  for (int b = 0; b < 256; ++b) toks.push_back(std::string(1, static_cast<char>(b)));
  toks.push_back("ab");
  toks.push_back("abcdefghijk");
  auto t = MergeTable::from_ranks(toks);
  REQUIRE(t.ok());
  std::string image = t->serialize();
  REQUIRE(MergeTable::deserialize(image).ok());
  CHECK_FALSE(MergeTable::deserialize("").ok());
  CHECK_FALSE(MergeTable::deserialize(image.substr(0, image.size() - 8)).ok());
  CHECK_FALSE(MergeTable::deserialize(image + std::string(8, '\0')).ok());
  // Every single-byte flip (sampled) is caught by the header or the checksum.
  for (std::size_t i = 0; i < image.size(); i += 1 + i / 16) {
    std::string bad = image;
    bad[i] = static_cast<char>(bad[i] ^ 0x40);
    CHECK_MESSAGE(!MergeTable::deserialize(bad).ok(), "byte " << i);
  }
}
