// valid_utf8_prefix's vector form against the scalar loop: every byte pair
// and lead-byte sequence at every place around a 16-byte block boundary and
// a 64-byte step, and random mixed-script text with random damage.
#include <doctest/doctest.h>

#include <random>
#include <string>

#include "core/utf8.hpp"
#include "text/pretokenizer.hpp"

using tok::text::valid_utf8_prefix;
using tok::utf8::valid_prefix_scalar;

TEST_CASE("vector and scalar UTF-8 validation agree on every byte pair at every block offset") {
  // Two bytes (b1 >= 0x80: the pairs that matter), then a continuation, in
  // 160 bytes of ASCII, at offsets around block boundaries inside the
  // first 64-byte step, between steps, and inside the second.
  std::string base(160, 'x');
  std::size_t disagreements = 0;
  for (int b1 = 0x80; b1 <= 0xFF; ++b1) {
    for (int b2 = 0; b2 <= 0xFF; ++b2) {
      for (int b3 : {0x41, 0x80, 0x9F, 0xA0, 0xBF}) {
        for (std::size_t at : {0u,  12u, 13u, 14u, 15u, 16u, 29u,  30u,  31u,  32u,  46u,
                               47u, 61u, 62u, 63u, 64u, 93u, 109u, 125u, 126u, 127u, 128u}) {
          std::string s = base;
          s[at] = static_cast<char>(b1);
          s[at + 1] = static_cast<char>(b2);
          s[at + 2] = static_cast<char>(b3);
          s[at + 3] = static_cast<char>(0x80 | (b2 & 0x3F));
          if (valid_utf8_prefix(s) != valid_prefix_scalar(s)) ++disagreements;
        }
      }
    }
  }
  CHECK(disagreements == 0);
}

TEST_CASE("a character cut off at the end of a block or step, then only ASCII") {
  // The vector check skips all-ASCII blocks and steps: what the block
  // before them left unfinished must still count.
  std::size_t disagreements = 0, cases = 0;
  for (int lead = 0xC2; lead <= 0xF4; ++lead) {
    for (int cont = 0; cont <= 2; ++cont) {
      for (std::size_t end : {16u, 32u, 48u, 64u, 80u, 128u, 192u}) {
        for (std::size_t tail : {16u, 64u, 130u}) {
          std::string s(end + tail, 'x');
          std::size_t at = end - 1 - static_cast<std::size_t>(cont);
          s[at] = static_cast<char>(lead);
          for (int k = 1; k <= cont; ++k)
            s[at + static_cast<std::size_t>(k)] = static_cast<char>(0xA0);
          if (valid_utf8_prefix(s) != valid_prefix_scalar(s)) ++disagreements;
          ++cases;
        }
      }
    }
  }
  CHECK(cases > 2000);
  CHECK(disagreements == 0);
}

TEST_CASE("vector and scalar UTF-8 validation agree on damaged mixed-script text") {
  const char* chars[] = {"a",
                         " ",
                         "\n",
                         "é",
                         "ß",
                         "—",
                         "中",
                         "の",
                         "😀",
                         "𝄞",
                         "\xef\xbf\xbf",
                         "\xed\x9f\xbf",
                         "\xf4\x8f\xbf\xbf",
                         "\xe0\xa0\x80",
                         "\xf0\x90\x80\x80"};
  const unsigned char damage[] = {0x80, 0xBF, 0xC0, 0xC1, 0xC2, 0xE0,
                                  0xED, 0xF0, 0xF4, 0xF5, 0xFF, 0x00};
  std::mt19937 rng(5);
  std::size_t checked = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string s;
    std::size_t len = rng() % 300;
    while (s.size() < len) s += chars[rng() % 15];
    REQUIRE(valid_utf8_prefix(s) == s.size());
    int hits = static_cast<int>(rng() % 3);
    for (int h = 0; h < hits && !s.empty(); ++h) {
      std::size_t at = rng() % s.size();
      switch (rng() % 3) {
        case 0: s[at] = static_cast<char>(damage[rng() % 12]); break;
        case 1: s.insert(at, 1, static_cast<char>(damage[rng() % 12])); break;
        default: s.resize(at); break;
      }
    }
    CHECK(valid_utf8_prefix(s) == valid_prefix_scalar(s));
    ++checked;
  }
  CHECK(checked == 20000);
}
