// Character-first initial symbols (bpe/char_symbols.hpp): the merge loop
// started from characters must give exactly the tokens it gives started
// from bytes, on real vocabularies, on every script, next to the tokens that
// make a boundary unclean, next to outranked characters and stray bytes.
#include <doctest/doctest.h>

#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "bpe/encoder.hpp"
#include "bpe/merge_table.hpp"
#include "core/utf8.hpp"
#include "formats/registry.hpp"
#include "ranked_table.hpp"

using namespace tok::bpe;
using tok::bpe::testing::ranked_table;

namespace {

std::vector<TokenId> merged(const MergeTable& t, std::string_view piece, EncodeScratch& s,
                            bool chars) {
  s.char_symbols = chars;
  std::vector<TokenId> out;
  merge_symbols(t, piece, kNoRank, false, out, s);
  return out;
}

// How many characters of piece start merged (0: the byte path was taken).
std::size_t merged_chars(const MergeTable& t, std::string_view piece, CharCache& cache) {
  std::size_t n = 0, bytes = 0;
  EncodeScratch s;
  emit_char_symbols(
      t, piece, cache,
      [&](std::size_t, TokenId id) {
        ++n;
        bytes += t.bytes(id).size();
      },
      [&](std::string_view b, std::uint32_t cap, std::vector<TokenId>& out) {
        merge_symbols(t, b, cap, false, out, s);
      });
  return bytes - n;  // each merged character saves its length less its tokens
}

// piece repeated until the merge loop starts it from characters.
std::string long_enough(std::string_view piece) {
  std::string s;
  while (s.size() < kMinCharSymbolBytes) s += piece;
  return s;
}

// In "ba中" (repeated to length), 中 must start as bytes: both starts give
// ba (token ba) merged first, then 中 (token zhong).
void check_ba_first(const MergeTable& t, TokenId ba, TokenId zhong) {
  CharCache cache;
  CHECK(merged_chars(t, "ba\xe4\xb8\xad", cache) == 0);
  EncodeScratch s;
  std::string p = long_enough("ba\xe4\xb8\xad");
  std::vector<TokenId> want = merged(t, p, s, false);
  CHECK(want[0] == ba);
  CHECK(want[1] == zhong);
  CHECK(merged(t, p, s, true) == want);
}

}  // namespace

TEST_CASE("a character next to a token that splits it starts as bytes") {
  // 256: \xb8\xad\xe4 (the end of 中, the start of the next character), 257
  // and 258 build 中; 中 is then merged only where no such token spans.
  MergeTable t = ranked_table({"\xb8\xad\xe4", "\xe4\xb8", "\xe4\xb8\xad"});
  REQUIRE(t.chars_usable());
  CharCache cache;
  std::string zz = "\xe4\xb8\xad\xe4\xb8\xad";  // 中中: 256 spans the middle
  std::uint8_t flags[8] = {};
  t.mark_unclean(zz, flags);
  CHECK(flags[3] == 1);
  CHECK(merged_chars(t, zz, cache) == 0);
  std::string za =
      "\xe4\xb8\xad"
      "a";  // 中a: nothing spans
  CHECK(merged_chars(t, za, cache) == 2);
  EncodeScratch s;
  for (const std::string& piece : {zz, za, zz + za, std::string("\xb8\xad\xe4\xb8\xad")}) {
    std::string p = long_enough(piece);
    CAPTURE(p);
    CHECK(merged(t, p, s, true) == merged(t, p, s, false));
  }
  // The trie survives the image round trip.
  auto back = MergeTable::deserialize(t.serialize());
  REQUIRE(back.ok());
  REQUIRE(back->chars_usable());
  std::uint8_t again[8] = {};
  back->mark_unclean(zz, again);
  CHECK(again[3] == 1);
}

TEST_CASE("an outranked character starts as bytes") {
  // 中 (270, from \xe4\xb8 at 256) ranks after a中 (260), a token holding
  // it: condition (2) fails. Merged first, 中 would let a中 beat ba (265) in
  // "ba中"; from bytes, ba merges before 中 is formed.
  std::vector<std::string> extra(15);
  for (std::size_t i = 0; i < extra.size(); ++i) extra[i] = "zz" + std::to_string(i);
  extra[0] = "\xe4\xb8";
  extra[4] = "a\xe4\xb8\xad";
  extra[9] = "ba";
  extra[14] = "\xe4\xb8\xad";
  MergeTable t = ranked_table(extra);
  CHECK(t.outranked_char(0xe4u | 0xb8u << 8 | 0xadu << 16));
  check_ba_first(t, 256 + 9, 256 + 14);
}

TEST_CASE("a character whose last merge is not its highest starts as bytes") {
  // 中 is 256, built last from \xb8\xad (300): condition (1) fails. Merged
  // first, 中 would let a中 (280) beat ba (290) in "ba中"; from bytes, ba
  // merges while 中 is still unformed.
  std::vector<std::string> extra(45);
  for (std::size_t i = 0; i < extra.size(); ++i) extra[i] = "zz" + std::to_string(i);
  extra[0] = "\xe4\xb8\xad";
  extra[24] = "a\xe4\xb8\xad";
  extra[34] = "ba";
  extra[44] = "\xb8\xad";
  MergeTable t = ranked_table(extra);
  REQUIRE(t.chars_usable());
  check_ba_first(t, 256 + 34, 256);
}

TEST_CASE("characters first give the bytes' tokens on real vocabularies") {
  // Characters of every script the vocabularies split differently, some of
  // two, three and four bytes, stray bytes, and the tokens that split
  // characters (drawn from each table).
  const char* chars[] = {"的", "是", "不", "了", "人",   "中",   "国",  "語", "の", "に",   "は",
                         "ア", "ン", "ー", "한", "국",   "어",   "니",  "п",  "р",  "и",    "э",
                         "ค",  "ว",  "า",  "ๆ",  "ฝ",    "ฐ",    "ก",   "ร",  "น",  "ม",    "่",
                         "้",   "ั",   "ี",   "क",  "ा",    "ि",    "्",    "र",  "ഉ",  "ఉ",    "ച",
                         "م",  "ل",  "ا",  "ي",  "é",    "ợ",    "ü",   "→",  "😀",  "🙂", "𝐀",
                         "a",  "e",  " ",  "1",  "\x80", "\xe0", "\xb8"};
  for (const char* name : {"cl100k_base", "o200k_base"}) {
    auto tk = tok::formats::load_tokenizer(name);
    REQUIRE(tk.ok());
    const MergeTable& t = tk->table();
    REQUIRE(t.chars_usable());
    std::vector<std::string> splitters;
    for (TokenId id = 0; id < t.size(); ++id) {
      std::string_view b = t.bytes(id);
      if (b.size() > 1 && tok::utf8::valid_prefix_scalar(b) != b.size()) splitters.emplace_back(b);
    }
    REQUIRE(splitters.size() > 100);
    std::mt19937 rng(7);
    EncodeScratch s;
    CharCache cache;
    std::size_t used = 0;
    const int rounds = 6000;
    for (int i = 0; i < rounds; ++i) {
      std::string piece;
      int len = 8 + static_cast<int>(rng() % 60);
      for (int k = 0; k < len; ++k) {
        piece +=
            rng() % 8 == 0 ? splitters[rng() % splitters.size()] : chars[rng() % std::size(chars)];
      }
      CAPTURE(name);
      CAPTURE(piece);
      CHECK(merged(t, piece, s, true) == merged(t, piece, s, false));
      used += piece.size() >= kMinCharSymbolBytes && merged_chars(t, piece, cache) > 0;
    }
    MESSAGE(std::string(name) << ": characters started merged in " << used << " of " << rounds
                              << " pieces");
    CHECK(used > rounds / 2);
    // Every script's sample text, a line at a time.
    for (const char* sample :
         {"am", "ar", "bn", "el", "fa", "he", "hi", "hy", "ja",      "ka",     "ko",
          "my", "ru", "ta", "te", "th", "tr", "uk", "vi", "zh-Hans", "zh-Hant"}) {
      std::ifstream in(std::string(TOK_VOCAB_DIR_FOR_TESTS "/samples/") + sample + ".txt");
      REQUIRE(in);
      std::string line;
      while (std::getline(in, line)) {
        CAPTURE(sample);
        CAPTURE(line);
        CHECK(merged(t, line, s, true) == merged(t, line, s, false));
      }
    }
  }
}
