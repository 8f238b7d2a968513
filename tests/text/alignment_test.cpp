// Alignment of rewritten text with the input (text/alignment.hpp), on small
// cases checked by hand: the boundary map to_input[i] for every boundary i
// of the rewritten text.
#include <doctest/doctest.h>

#include <cstdint>

#include "text/alignment.hpp"
#include "text/normalize.hpp"

using namespace tok::text;
using Map = std::vector<std::size_t>;

TEST_CASE("alignment: prefix space and spaces to \"▁\" (SentencePiece)") {
  // "a b" -> "▁a▁b": ▁ (3 bytes, inserted) a ▁ (3 bytes, from the space) b
  Map spaced, prefixed;
  std::string s = replace_all("a b", " ", "\u2581", &spaced);
  CHECK(s == "a\u2581b");
  CHECK(spaced == Map{0, 1, 2, 2, 2, 3});
  std::string t = prepend(s, "\u2581", &prefixed);
  CHECK(t == "\u2581a\u2581b");
  CHECK(prefixed == Map{0, 0, 0, 0, 1, 2, 3, 4, 5});
  compose_alignment(spaced, prefixed);
  // The inserted "▁" takes no input byte: a token "▁a" = [0, 4) covers
  // input [0, 1); "▁b" = [4, 8) covers [1, 3), the space and the b.
  CHECK(prefixed == Map{0, 0, 0, 0, 1, 2, 2, 2, 3});
}

TEST_CASE("alignment: a run of spaces becomes a run of \"▁\"") {
  Map m;
  std::string s = replace_all("x  y", " ", "\u2581", &m);
  CHECK(s == "x\u2581\u2581y");
  // Each ▁ stands for its own space: boundaries 1 and 4 are the spaces'.
  CHECK(m == Map{0, 1, 2, 2, 2, 3, 3, 3, 4});
  CHECK(m[1] == 1);
  CHECK(m[4] == 2);
  CHECK(m[7] == 3);
}

TEST_CASE("alignment: NFC composition shortens the text") {
  // "e" + U+0301 (3 bytes) -> "é" (2 bytes); the x after it keeps its byte.
  Map m;
  std::string s = unicode_normalize("e\xCC\x81x", "NFC", &m);
  CHECK(s == "\xC3\xA9x");
  CHECK(m == Map{0, 3, 3, 4});
  // Text that is already NFC maps to itself.
  Map id;
  CHECK(unicode_normalize("abc", "NFC", &id) == "abc");
  CHECK(id == Map{0, 1, 2, 3});
  // An invalid byte is kept and the text before it is normalized (the same
  // with or without alignment).
  Map bad;
  CHECK(unicode_normalize("e\xCC\x81\xFF", "NFC", &bad) ==
        unicode_normalize("e\xCC\x81\xFF", "NFC"));
  CHECK(bad == Map{0, 3, 3, 4});
}

TEST_CASE("alignment: lowercase that lengthens the text") {
  // U+023A (2 bytes) lowercases to U+2C65 (3 bytes).
  Map m;
  std::string s = unicode_lowercase(
      "A\xC8\xBA"
      "b",
      &m);
  CHECK(s ==
        "a\xE2\xB1\xA5"
        "b");
  CHECK(m == Map{0, 1, 3, 3, 3, 4});
}

TEST_CASE("alignment: stripped bytes go to the neighbouring token") {
  Map m;
  std::string s = strip("  ab ", true, true, &m);
  CHECK(s == "ab");
  // The leading spaces belong to the first byte's token, the trailing one
  // to the last.
  CHECK(m == Map{0, 3, 5});
}

TEST_CASE("alignment: the text is the same with and without it") {
  std::string in = "Ünïcödé  TEXT e\xCC\x81 \xFF end";
  Map m;
  CHECK(unicode_normalize(in, "NFKC", &m) == unicode_normalize(in, "NFKC"));
  CHECK(unicode_lowercase(in, &m) == unicode_lowercase(in));
  CHECK(m.size() == unicode_lowercase(in).size() + 1);
  CHECK(m.front() == 0);
  CHECK(m.back() == in.size());
}

TEST_CASE("alignment: random mixes of composing, lengthening and invalid bytes") {
  // Pieces that compose (e + U+0301, Hangul L + V), lowercase to other
  // lengths, decompose under NFKC (the ligature "fi"), are invalid, or cut
  // the text into normalization runs.
  // U+1E06B and U+1DF6 are newer than HF's normalization tables (kept).
  const char* pieces[] = {"e",
                          "\xCC\x81",
                          "A",
                          "\xC8\xBA",
                          " ",
                          "\xFF",
                          "\xE1\x84\x80",
                          "\xE1\x85\xA1",
                          "\xEF\xAC\x81",
                          "\xC3\x89",
                          "x",
                          "\xF0\x9E\x81\xAB",
                          "\xE1\xB7\xB6"};
  std::uint32_t seed = 12345;
  auto next = [&] { return seed = seed * 1664525u + 1013904223u; };
  auto valid = [](const Map& m, std::size_t in, std::size_t out) {
    if (m.size() != out + 1 || m.front() != 0 || m.back() != in) return false;
    for (std::size_t i = 1; i < m.size(); ++i) {
      if (m[i] < m[i - 1]) return false;
    }
    return true;
  };
  for (int round = 0; round < 300; ++round) {
    std::string in;
    for (std::uint32_t k = next() % 12; k > 0; --k) in += pieces[(next() >> 8) % 13];
    for (const char* form : {"NFC", "NFD", "NFKC"}) {
      Map m;
      std::string s = unicode_normalize(in, form, &m);
      CHECK(s == unicode_normalize(in, form));
      CHECK(valid(m, in.size(), s.size()));
    }
    Map m;
    std::string s = unicode_lowercase(in, &m);
    CHECK(valid(m, in.size(), s.size()));
    s = replace_all(in, " ", "\u2581", &m);
    CHECK(valid(m, in.size(), s.size()));
  }
}
