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
#include "formats/registry.hpp"
#include "tiny_merge_list.hpp"

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

namespace {

// Where `bytes` first occurs in `image` at an 8-aligned offset (slots are).
std::size_t find_aligned(const std::string& image, const std::string& bytes) {
  for (std::size_t at = image.find(bytes); at != std::string::npos;
       at = image.find(bytes, at + 1)) {
    if (at % 8 == 0) return at;
  }
  return std::string::npos;
}

std::string le64(std::uint64_t v) {
  std::string s(8, '\0');
  std::memcpy(s.data(), &v, 8);
  return s;
}

std::string le32(std::uint32_t v) {
  std::string s(4, '\0');
  std::memcpy(s.data(), &v, 4);
  return s;
}

// The image with the 4 bytes at `at` set to v, its checksum made to match.
std::string sealed_with(std::string image, std::size_t at, std::uint32_t v) {
  std::memcpy(image.data() + at, &v, 4);
  REQUIRE(MergeTable::reseal(image));
  return image;
}

std::string message_of(const tok::Result<MergeTable>& r) {
  return r.ok() ? "(loaded)" : r.error().message;
}

}  // namespace

// The checksum catches accidents; the bounds checks behind it are what keep a
// table that passed it (or one crafted to) from sending the encoder out of
// its arrays. An index slot, a pair's ids and result, and tiktoken's
// priorities, each pointed past the vocabulary (or at an id with no token),
// in a resealed image.
TEST_CASE("merge table image: a resealed image with bad bounds is still refused") {
  for (bool holes : {false, true}) {
    CAPTURE(holes);
    std::vector<std::optional<std::string>> toks;
    for (int b = 0; b < 256; ++b) toks.push_back(std::string(1, static_cast<char>(b)));
    toks.push_back("ab");                     // 256
    toks.push_back("abcdefghijk");            // 257
    if (holes) toks.push_back(std::nullopt);  // 258: an id without a token
    toks.push_back("zz");                     // 258 or 259
    // The merge-list form: the ranked one keeps no pairs.
    auto t = MergeTable::from_merges(toks, {{'a', 'b'}}, {});
    REQUIRE(t.ok());
    const std::string image = t->serialize();
    std::string copy = image;
    REQUIRE(MergeTable::reseal(copy));
    CHECK(copy == image);  // resealing a good image changes nothing
    REQUIRE(MergeTable::deserialize(image).ok());
    const std::uint32_t n = static_cast<std::uint32_t>(toks.size());
    std::vector<std::uint32_t> bad_ids = {n, n + 1000, 0xfffffffeu};
    if (holes) bad_ids.push_back(258);  // in range, but no token

    // The index slot of "abcdefghijk": its first 8 bytes, then id + 1.
    std::size_t slot = find_aligned(image, "abcdefgh" + le32(258));
    REQUIRE(slot != std::string::npos);
    for (std::uint32_t id : bad_ids) {
      CAPTURE(id);
      CHECK(message_of(MergeTable::deserialize(sealed_with(image, slot + 8, id + 1))) ==
            "index id out of range");
    }
    // The pair ('a', 'b') -> "ab": its key, then rank (0) and result.
    std::size_t pair =
        find_aligned(image, le64(std::uint64_t{'a'} << 32 | 'b') + le32(0) + le32(256));
    REQUIRE(pair != std::string::npos);
    for (std::uint32_t id : bad_ids) {
      CAPTURE(id);
      CHECK(message_of(MergeTable::deserialize(sealed_with(image, pair + 12, id))) ==
            "pair out of range");
      if (id == 258) continue;  // a key's ids need only be in range
      CHECK(message_of(MergeTable::deserialize(sealed_with(image, pair, id))) ==
            "pair out of range");
      CHECK(message_of(MergeTable::deserialize(sealed_with(image, pair + 4, id))) ==
            "pair out of range");
    }
    // Damage that the checksum catches is reported as such, whatever else
    // it broke.
    std::string unsealed = image;
    std::uint32_t big = n + 5;
    std::memcpy(unsealed.data() + slot + 8, &big, 4);
    CHECK(message_of(MergeTable::deserialize(unsealed)) == "checksum mismatch");
  }
}

TEST_CASE("merge table image: tiktoken's priorities must be the ids") {
  auto tk = tok::formats::load_tokenizer("cl100k_base");
  REQUIRE(tk.ok());
  std::string image = tk->table().serialize();
  // priority_ is stored right after present_; find the run 1000, 1001, 1002.
  std::size_t at = image.find(le32(1000) + le32(1001) + le32(1002));
  REQUIRE(at != std::string::npos);
  REQUIRE(MergeTable::deserialize(image).ok());
  CHECK(message_of(MergeTable::deserialize(sealed_with(image, at, 999))) ==
        "priorities are not the ids");
}
