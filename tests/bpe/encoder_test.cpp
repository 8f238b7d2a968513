// The merge loop: exact tiny cases, linear scan == heap, no quadratic blow-up,
// round trips on arbitrary bytes, count == encode().size().
#include <doctest/doctest.h>

#include <chrono>
#include <random>

#include "bpe/encoder.hpp"
#include "bpe/merge_table.hpp"
#include "bpe/tokenizer.hpp"
#include "formats/registry.hpp"
#include "tiny_merge_list.hpp"

using namespace tok::bpe;

namespace {

std::vector<TokenId> run(const MergeTable& t, std::string_view piece, bool heap) {
  EncodeScratch s;
  std::vector<TokenId> out;
  merge_symbols(t, piece, kNoRank, heap, out, s);
  return out;
}

MergeTable tiny_ranked() {
  // 256 bytes, then "ab" (256), "abab"? no: "aa" (257), "aaa" (258), "ba" (259)
  std::vector<std::string> toks;
  for (int b = 0; b < 256; ++b) toks.push_back(std::string(1, static_cast<char>(b)));
  toks.push_back("ab");
  toks.push_back("aa");
  toks.push_back("aaa");
  toks.push_back("ba");
  return std::move(MergeTable::from_ranks(toks)).value();
}

}  // namespace

TEST_CASE("ranked merges: lowest rank first, leftmost on ties") {
  MergeTable t = tiny_ranked();
  CHECK(run(t, "ab", false) == std::vector<TokenId>{256});
  CHECK(run(t, "aab", false) == std::vector<TokenId>{'a', 256});   // "ab" (256) beats "aa" (257)
  CHECK(run(t, "aaaa", false) == std::vector<TokenId>{257, 257});  // leftmost "aa" first
  CHECK(run(t, "aaa", false) == std::vector<TokenId>{258});        // aa+a -> aaa
  CHECK(run(t, "bab", false) == std::vector<TokenId>{'b', 256});
  CHECK(run(t, "", false).empty());
}

TEST_CASE("merge-list form: only listed pairs merge, in list order") {
  auto v = testing::tiny_merge_list();
  // "bc" first, then "ab", then "ab"+"c": in "abc" the pair (b,c) merges first,
  // and (a, bc) is not a listed merge, so the result is a, bc.
  auto t = MergeTable::from_merges(v.tokens, v.merges, v.options);
  REQUIRE(t.ok());
  CHECK(run(*t, "abc", false) == std::vector<TokenId>{'a', 258});
  CHECK(run(*t, "abcab", false) == std::vector<TokenId>{'a', 258, 256});
  auto bad = MergeTable::from_merges(v.tokens, {{'x', 'y'}}, v.options);
  CHECK_FALSE(bad.ok());
}

TEST_CASE("linear scan and heap agree on real vocabularies") {
  auto tk = tok::formats::load_tokenizer("o200k_base");
  REQUIRE(tk.ok());
  std::mt19937 rng(7);
  const char* alphabet[] = {"a", "b", "e", "r", "t", " ", "\n", "1", "é", "中", "😀", "th", "ing"};
  for (int i = 0; i < 2000; ++i) {
    std::string s;
    int len = 1 + static_cast<int>(rng() % 60);
    for (int k = 0; k < len; ++k) s += alphabet[rng() % 13];
    CHECK(run(tk->table(), s, false) == run(tk->table(), s, true));
  }
}

TEST_CASE("linear scan and heap agree on runs of CJK characters (many merges a piece)") {
  // Pieces of 3-135 bytes: the linear merge's blocks of 8 pairs, merged in
  // place, against the heap.
  const char* chars[] = {"的", "是", "不", "了", "人", "我", "在", "有", "他", "这", "中", "大",
                         "来", "上", "国", "个", "到", "说", "们", "为", "子", "和", "你", "地",
                         "の", "に", "は", "を", "た", "が", "で", "て", "し", "い", "ア", "ン"};
  for (const char* name : {"cl100k_base", "o200k_base"}) {
    auto tk = tok::formats::load_tokenizer(name);
    REQUIRE(tk.ok());
    std::mt19937 rng(11);
    for (int i = 0; i < 1500; ++i) {
      std::string s;
      int len = 1 + static_cast<int>(rng() % 45);
      for (int k = 0; k < len; ++k) s += chars[rng() % 36];
      CHECK(run(tk->table(), s, false) == run(tk->table(), s, true));
    }
  }
}

TEST_CASE("every merge strategy agrees across its size boundaries and under rank limits") {
  // Short pieces (up to 32 symbols) shift compact arrays, longer ones merge
  // in place in blocks, the heap takes 128 and more: pieces of 1-150
  // symbols against the heap, on a ranked table (cl100k_base), a merge list
  // (qwen3) and a SentencePiece table with byte fallback (mistral), with and
  // without a limit on the merges' priority.
  const char* units[] = {"a", "b",  "e",  "r", "t",  " ",   "1",
                         "é", "中", "の", "😀", "th", "ing", "\n"};
  for (const char* name : {"cl100k_base", "qwen3", "mistral"}) {
    auto tk = tok::formats::load_tokenizer(name);
    REQUIRE_MESSAGE(tk.ok(), name);
    const MergeTable& t = tk->table();
    std::mt19937 rng(23);
    for (int i = 0; i < 600; ++i) {
      std::string s;
      std::size_t bytes = 1 + rng() % 150;
      while (s.size() < bytes) s += units[rng() % 14];
      for (std::uint32_t max_rank : {kNoRank, 2000u, 300u}) {
        EncodeScratch a, b;
        std::vector<TokenId> small_or_linear, heap;
        merge_symbols(t, s, max_rank, false, small_or_linear, a);
        merge_symbols(t, s, max_rank, true, heap, b);
        CHECK_MESSAGE(small_or_linear == heap,
                      name << " " << s.size() << " bytes, max_rank " << max_rank);
      }
    }
  }
}

TEST_CASE("long runs are not quadratic") {
  auto tk = tok::formats::load_tokenizer("o200k_base");
  REQUIRE(tk.ok());
  for (std::string unit : {"a", "1", " ", "\n", "é", "ab"}) {
    std::string s;
    while (s.size() < (1u << 20)) s += unit;
    auto t0 = std::chrono::steady_clock::now();
    auto ids = tk->encode(s, SpecialMode::kText);
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    REQUIRE(ids.ok());
    CHECK(*tk->decode(*ids) == s);
    // Not a timed assertion (machines are noisy): a quadratic merge loop would
    // take minutes here and trip ctest's timeout; scripts/bench reports speed.
    MESSAGE("1 MB run of '" << unit << "' took " << secs << " s");
  }
}

TEST_CASE("round trip on random bytes and count == encode().size()") {
  std::mt19937 rng(42);
  for (const char* enc : {"r50k_base", "cl100k_base", "o200k_base"}) {
    auto tk = tok::formats::load_tokenizer(enc);
    REQUIRE(tk.ok());
    for (int i = 0; i < 300; ++i) {
      std::string s(rng() % 200, '\0');
      for (char& c : s) c = static_cast<char>(rng() % 256);
      if (i % 3 == 0) {  // mostly-valid text with some invalid bytes
        for (char& c : s) c = static_cast<char>(32 + rng() % 95);
        if (!s.empty()) s[rng() % s.size()] = static_cast<char>(0x80 + rng() % 128);
      }
      auto ids = tk->encode(s, SpecialMode::kText);
      REQUIRE(ids.ok());
      CHECK(*tk->decode(*ids) == s);
      CHECK(*tk->count(s, SpecialMode::kText, 1) == ids->size());
    }
  }
}

TEST_CASE("parallel count equals single-threaded count") {
  auto tk = tok::formats::load_tokenizer("cl100k_base");
  REQUIRE(tk.ok());
  std::mt19937 rng(3);
  const char* frags[] = {"word ", "\n", "\nA", "\n\n",          " \n",   "x", "'s",  "123",
                         "\r\n",  "  ", "é",   "<|endoftext|>", "\nthe", "!", "\n\t"};
  std::string s;
  while (s.size() < (5u << 20)) s += frags[rng() % 15];
  for (auto mode : {SpecialMode::kText, SpecialMode::kAllow}) {
    auto one = tk->count(s, mode, 1);
    for (unsigned threads : {2u, 3u, 4u}) CHECK(*tk->count(s, mode, threads) == *one);
  }
}

TEST_CASE("one scratch reused across many texts gives the ids of a fresh scratch") {
  // The caches (hot, piece, pair) live in the scratch; their state must never
  // change a result. Many short texts from a small alphabet fill and recycle
  // every cache, on both a ranked vocabulary and the trainer-derived form.
  for (const char* enc : {"cl100k_base", "o200k_base"}) {
    auto tk = tok::formats::load_tokenizer(enc);
    REQUIRE(tk.ok());
    std::mt19937 rng(11);
    const char* alphabet[] = {"a", "b",  "e",    "r", "t",   " ",    "\n", "1",
                              "é", "中", "日本", "😀", "ing", "\xff", "  ", "Ж"};
    EncodeScratch shared;
    std::size_t total = 0;
    for (int i = 0; i < 20000; ++i) {
      std::string s;
      for (int k = 1 + static_cast<int>(rng() % 30); k > 0; --k) s += alphabet[rng() % 16];
      std::vector<TokenId> reused;
      REQUIRE(tk->encode(s, SpecialMode::kText, reused, shared).ok());
      auto fresh = tk->encode(s, SpecialMode::kText);
      REQUIRE(fresh.ok());
      CHECK(reused == *fresh);
      CHECK(*tk->count(s, SpecialMode::kText, shared) == fresh->size());
      total += fresh->size();
    }
    MESSAGE(enc << ": " << total << " tokens");
  }
}

TEST_CASE("a batch of pieces gives each piece's tokens in order, however many there are") {
  // encode_pieces gathers a batch's tokens before appending them; pieces of
  // many tokens (long runs no cache answers whole) overflow what it gathers,
  // at every place in a batch. Against one piece at a time, and as counts.
  auto tk = tok::formats::load_tokenizer("cl100k_base");
  REQUIRE(tk.ok());
  const MergeTable& t = tk->table();
  std::mt19937 rng(29);
  const char* units[] = {"the", " of", "中", "x", "7", "é", "Ж", "\xff", "qz", "😀"};
  for (int round = 0; round < 300; ++round) {
    std::vector<std::string> texts;
    std::size_t n = 1 + rng() % kPieceBatch;
    for (std::size_t i = 0; i < n; ++i) {
      std::string p;
      std::size_t units_in = rng() % 4 == 0 ? 20 + rng() % 200 : rng() % 3;
      for (std::size_t u = 0; u < units_in; ++u) p += units[rng() % 10];
      texts.push_back(p);
    }
    std::vector<std::string_view> pieces(texts.begin(), texts.end());
    EncodeScratch batch_scratch, one_scratch;
    std::vector<TokenId> batched, one_by_one;
    std::size_t counted = 0;
    encode_pieces(t, pieces.data(), n, &batched, nullptr, batch_scratch);
    EncodeScratch count_scratch;
    encode_pieces(t, pieces.data(), n, nullptr, &counted, count_scratch);
    for (auto p : pieces) encode_piece(t, p, one_by_one, one_scratch);
    REQUIRE(batched == one_by_one);
    CHECK(counted == one_by_one.size());
  }
}

TEST_CASE(
    "a piece over the limit is an error Status from every Tokenizer entry point, never a throw") {
  auto tk = tok::formats::load_tokenizer("o200k_base");
  REQUIRE(tk.ok());
  // One run of a letter: a single pre-tokenizer piece one byte over the limit.
  std::string text = "hi.\n" + std::string(kMaxPieceBytes + 1, 'a');
  const std::string want = "a piece of " + std::to_string(kMaxPieceBytes + 1) + " bytes";
  auto is_the_error = [&](const tok::Error& e) { return e.message.starts_with(want); };
  EncodeScratch scratch;
  std::vector<TokenId> ids;
  std::vector<TokenSpan> spans;
  for (SpecialMode mode : {SpecialMode::kText, SpecialMode::kAllow, SpecialMode::kError}) {
    tok::Status st;
    CHECK_NOTHROW(st = tk->encode(text, mode, ids, scratch));
    CHECK((!st.ok() && is_the_error(st.error())));
    tok::Result<std::vector<TokenId>> r = std::vector<TokenId>{};
    CHECK_NOTHROW(r = tk->encode(text, mode));
    CHECK((!r.ok() && is_the_error(r.error())));
    CHECK_NOTHROW(st = tk->encode_spans(text, mode, spans, scratch));
    CHECK((!st.ok() && is_the_error(st.error())));
    tok::Result<std::size_t> n = std::size_t{0};
    CHECK_NOTHROW(n = tk->count(text, mode, scratch));
    CHECK((!n.ok() && is_the_error(n.error())));
    // Many threads: the text is cut into chunks, one of them holds the run.
    std::string big;
    while (big.size() < 3 * Tokenizer::kParallelChunk) big += "ab cd\n";
    big += text;
    CHECK_NOTHROW(n = tk->count(big, mode, 4u));
    CHECK((!n.ok() && is_the_error(n.error())));
  }
  // The scratch is still good for the next text.
  ids.clear();
  REQUIRE(tk->encode("hello world", SpecialMode::kText, ids, scratch).ok());
  CHECK(*tk->decode(ids) == "hello world");
  CHECK(check_piece_size(std::string(kMaxPieceBytes, 'a')).ok());
  CHECK(check_piece_size(std::string(kMaxPieceBytes + 1, 'a')).error().message.starts_with(want));
}
