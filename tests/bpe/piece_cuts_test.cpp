// Cutting cold pieces where no token can span (bpe/piece_cuts.hpp): the
// encoder's tokens for a piece must be those of the whole piece, looked up
// whole when it is a token and merged otherwise.
#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "bpe/encoder.hpp"
#include "bpe/merge_table.hpp"
#include "formats/registry.hpp"
#include "ranked_table.hpp"

using namespace tok::bpe;
using tok::bpe::testing::ranked_table;

namespace {

// The tokens of one piece without any cut: whole-piece lookup, then merges.
std::vector<TokenId> uncut(const MergeTable& t, std::string_view piece) {
  if (t.options().whole_piece_lookup) {
    TokenId whole = t.find(piece);
    if (whole != kNoToken) return {whole};
  }
  EncodeScratch s;
  std::vector<TokenId> out;
  merge_symbols(t, piece, kNoRank, false, out, s);
  return out;
}

std::vector<TokenId> encoded(const MergeTable& t, std::string_view piece, EncodeScratch& s) {
  std::vector<TokenId> out;
  encode_piece(t, piece, out, s);
  return out;
}

}  // namespace

TEST_CASE("a point that a token spans is never cut") {
  // "\xad\xe4" (the last byte of 中 and the first of 丁) is a token.
  MergeTable t = ranked_table({"\xad\xe4"});
  REQUIRE(t.cuts_usable());
  std::string two = "\xe4\xb8\xad\xe4\xb8\xad";  // 中中
  CHECK_FALSE(t.safe_cut(two, 3));
  CHECK_FALSE(t.safe_cut("\xe4\xb8\xad\xe4\xb8\x81", 3));  // 中丁: the same two bytes meet
  std::string free = "\xe5\x9b\xbd\xe5\x9b\xbd";           // 国国
  CHECK(t.safe_cut(free, 3));
  // Two bytes either side: "\xb8\xad\xe4\xb8" spans the point only after 中
  // and before a character starting \xe4\xb8.
  MergeTable wide = ranked_table({"\xb8\xad\xe4\xb8"});
  CHECK_FALSE(wide.safe_cut(two, 3));
  CHECK(wide.safe_cut(free, 3));
  CHECK(wide.safe_cut("\xe5\x9b\xad\xe4\xb8\xad", 3));  // "\xad\xe4\xb8" after \x9b, not \xb8
  CHECK(wide.safe_cut("\xe4\xb8\xad\xe4\xba\x8c", 3));  // 中二: \xe4\xba, not \xe4\xb8
  // The same after the table's image round trip.
  auto back = MergeTable::deserialize(wide.serialize());
  REQUIRE(back.ok());
  REQUIRE(back->cuts_usable());
  CHECK_FALSE(back->safe_cut(two, 3));
  CHECK(back->safe_cut(free, 3));
}

TEST_CASE("a cut-off part that is a token its bytes do not merge to is merged") {
  // 中 is a token (256), but no merge builds it from its bytes: alone, the
  // piece is looked up whole; inside 中中 (no token spans the middle) the
  // merges leave six bytes, and so must the cut.
  MergeTable t = ranked_table({"\xe4\xb8\xad"});
  REQUIRE(t.options().whole_piece_lookup);
  EncodeScratch s;
  std::string one = "\xe4\xb8\xad", two = one + one;
  CHECK(encoded(t, one, s) == std::vector<TokenId>{256});  // now in the caches
  std::vector<TokenId> bytes = {0xe4, 0xb8, 0xad, 0xe4, 0xb8, 0xad};
  CHECK(encoded(t, two, s) == bytes);
  CHECK(uncut(t, two) == bytes);
  EncodeScratch fresh;
  std::vector<TokenId> nine = {0xe4, 0xb8, 0xad, 0xe4, 0xb8, 0xad, 0xe4, 0xb8, 0xad};
  CHECK(encoded(t, two + one, fresh) == nine);
  // Parts first: the hot cache keeps 中's token, marked unchecked, for a
  // piece, and a part that finds it there is merged again.
  CHECK(encoded(t, two + one, fresh) == nine);
  CHECK(encoded(t, one, fresh) == std::vector<TokenId>{256});
  CHECK(encoded(t, two + one, fresh) == nine);
}

TEST_CASE("cut pieces give the tokens of the whole piece on real vocabularies") {
  const char* chars[] = {"的", "是", "不", "了", "人", "我", "在", "有", "他", "这", "中", "大",
                         "の", "に", "は", "を", "た", "が", "で", "て", "ア", "ン", "ー", "한",
                         "국", "어", "п",  "р",  "и",  "ж",  "ค",  "ว",  "า",  "م",  "😀",  "é"};
  for (const char* name : {"cl100k_base", "o200k_base"}) {
    auto tk = tok::formats::load_tokenizer(name);
    REQUIRE(tk.ok());
    const MergeTable& t = tk->table();
    // Tokens that span a candidate point: pieces built from them and their
    // neighbours are where a wrong cut would show.
    std::vector<std::string> spanning;
    for (TokenId id = 0; id < t.size(); ++id) {
      if (!t.has(id)) continue;
      std::string_view b = t.bytes(id);
      const auto* p = reinterpret_cast<const unsigned char*>(b.data());
      for (std::size_t j = 1; j < b.size(); ++j) {
        if (cuts::candidate(p, j)) {
          spanning.emplace_back(b);
          break;
        }
      }
    }
    REQUIRE(spanning.size() > 100);
    std::mt19937 rng(5);
    EncodeScratch shared;  // caches filled by every earlier piece
    std::size_t cut_pieces = 0;
    for (int i = 0; i < 4000; ++i) {
      std::string piece;
      int len = 2 + static_cast<int>(rng() % 30);
      for (int k = 0; k < len; ++k) {
        if (rng() % 3 == 0) {
          piece += spanning[rng() % spanning.size()];
        } else {
          piece += chars[rng() % std::size(chars)];
        }
      }
      CAPTURE(name);
      CAPTURE(piece);
      std::vector<TokenId> want = uncut(t, piece);
      CHECK(encoded(t, piece, shared) == want);
      EncodeScratch fresh;
      CHECK(encoded(t, piece, fresh) == want);
      const auto* p = reinterpret_cast<const unsigned char*>(piece.data());
      for (std::size_t j = 1; j < piece.size(); ++j) {
        if (cuts::candidate(p, j) && t.safe_cut(piece, j)) {
          ++cut_pieces;
          break;
        }
      }
    }
    // The test means something only if many pieces were cut.
    MESSAGE(std::string(name) << ": " << cut_pieces << " of 4000 pieces cut");
    CHECK(cut_pieces > 1000);
  }
}

TEST_CASE("for_each_candidate finds exactly the points candidate() accepts") {
  // Eight points a step with a byte-by-byte tail: every length around the
  // step, every start offset, bytes drawn from the classes that matter
  // (ASCII, continuation, lead) and from all 256.
  std::mt19937 rng(11);
  const unsigned char classes[] = {'a', ' ', 0x80, 0xBF, 0xA5, 0xC3, 0xE4, 0xF0, 0xFF, 0xC0};
  std::vector<unsigned char> buf(64);
  for (int round = 0; round < 4000; ++round) {
    std::size_t n = rng() % 41, off = rng() % 8;
    for (auto& c : buf) {
      c = round % 2 ? classes[rng() % std::size(classes)] : static_cast<unsigned char>(rng());
    }
    const unsigned char* b = buf.data() + off;
    std::vector<std::size_t> want, got;
    for (std::size_t p = 1; p < n; ++p) {
      if (cuts::candidate(b, p)) want.push_back(p);
    }
    cuts::for_each_candidate(b, n, [&](std::size_t p) { got.push_back(p); });
    CAPTURE(n);
    CAPTURE(round);
    CHECK(got == want);
  }
  // A run of 3-byte characters: a candidate before every character but the first.
  std::string run;
  for (int i = 0; i < 20; ++i) run += "中";
  std::vector<std::size_t> got;
  cuts::for_each_candidate(reinterpret_cast<const unsigned char*>(run.data()), run.size(),
                           [&](std::size_t p) { got.push_back(p); });
  REQUIRE(got.size() == 19);
  for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i] == 3 * (i + 1));
}

TEST_CASE("long cut runs of CJK, Thai, Devanagari, Arabic and stray bytes encode as uncut") {
  // Runs of 90-180 bytes, as the pre-tokenizer gives for a line of Chinese
  // or Japanese (one piece), in scripts whose characters are 2, 3 and 4
  // bytes, mixed and with stray bytes, each encoded in a fresh scratch (the
  // first call's path: every part cold) and in one kept across pieces.
  const char* scripts[][12] = {
      {"的", "是", "不", "了", "人", "我", "在", "有", "他", "这", "中", "大"},
      {"の", "に", "は", "を", "た", "が", "で", "て", "ア", "ン", "ー", "日"},
      {"한", "국", "어", "는", "이", "가", "을", "에", "서", "다", "고", "의"},
      {"ค", "ว", "า", "ม", "ส", "ุ", "ข", "ภ", "ษ", "ไ", "ท", "ย"},
      {"क", "ि", "ा", "न", "ह", "ी", "ं", "र", "स", "्", "त", "े"},
      {"م", "ر", "ح", "ب", "ا", "ل", "ع", "ي", "ك", "و", "ن", "ة"},
  };
  std::mt19937 rng(17);
  for (const char* name : {"cl100k_base", "o200k_base"}) {
    auto tk = tok::formats::load_tokenizer(name);
    REQUIRE(tk.ok());
    const MergeTable& t = tk->table();
    EncodeScratch kept;
    std::size_t cut_pieces = 0;
    for (int i = 0; i < 1500; ++i) {
      std::string piece;
      std::size_t len = 90 + rng() % 91;
      const auto& script = scripts[rng() % std::size(scripts)];
      bool mixed = i % 3 == 0, stray = i % 7 == 0;
      while (piece.size() < len) {
        if (stray && rng() % 10 == 0) {
          piece += static_cast<char>(rng());
        } else {
          piece += mixed ? scripts[rng() % std::size(scripts)][rng() % 12] : script[rng() % 12];
        }
      }
      CAPTURE(name);
      CAPTURE(piece);
      std::vector<TokenId> want = uncut(t, piece);
      EncodeScratch fresh;
      CHECK(encoded(t, piece, fresh) == want);
      CHECK(encoded(t, piece, kept) == want);
      bool cut = false;
      cuts::for_each_candidate(reinterpret_cast<const unsigned char*>(piece.data()), piece.size(),
                               [&](std::size_t p) { cut = cut || t.safe_cut(piece, p); });
      cut_pieces += cut;
    }
    MESSAGE(std::string(name) << ": " << cut_pieces << " of 1500 long pieces cut");
    CHECK(cut_pieces > 500);
  }
}
