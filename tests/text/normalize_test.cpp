// Unicode normalization as Hugging Face tokenizers applies it: its tables
// are Unicode 9.0 (crate unicode-normalization-alignments), so code points
// assigned later are kept and stop reordering and composition. Expected
// values are what npm `tokenizers` 0.23.2's normalizers give.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "text/normalize.hpp"

using namespace tok::text;
using Map = std::vector<std::size_t>;

TEST_CASE("normalize: code points newer than Unicode 9.0 are left as they are") {
  // U+1E06B (Cyrillic Extended-D, 15.0) has the compatibility mapping U+04AB
  // in 15.0; HF keeps it in every form.
  for (const char* form : {"NFC", "NFD", "NFKC", "NFKD"}) {
    CHECK(unicode_normalize("\U0001E06B", form) == "\U0001E06B");
  }
  // The text beside it is normalized: the ligature "fi" (U+FB01) is "fi".
  CHECK(unicode_normalize("\uFB01\U0001E06B\uFB01", "NFKC") == "fi\U0001E06Bfi");
}

TEST_CASE("normalize: a newer combining mark is a starter, so nothing is reordered across it") {
  // U+1DF6 (10.0) has combining class 232 today and U+0316 has 220: today's
  // canonical order puts U+0316 first; HF's tables give U+1DF6 class 0.
  std::string in = "a\u1DF6\u0316";
  for (const char* form : {"NFC", "NFD", "NFKC", "NFKD"}) CHECK(unicode_normalize(in, form) == in);
  // After a newer starter a combining mark composes with nothing.
  CHECK(unicode_normalize("\U0001E030\u0301", "NFC") == "\U0001E030\u0301");
  CHECK(unicode_normalize("e\u0301\U0001E030e\u0301", "NFC") == "\u00E9\U0001E030\u00E9");
}

TEST_CASE("normalize: Hangul and marks of 9.0 as in Unicode") {
  CHECK(unicode_normalize("\u1100\u1161\u11A8", "NFC") == "\uAC01");
  CHECK(unicode_normalize("\uAC00\u11A8", "NFKD") == "\u1100\u1161\u11A8");
  CHECK(unicode_normalize("a\u0301\u0316", "NFD") == "a\u0316\u0301");
}

TEST_CASE("normalize: the tables' edge") {
  CHECK(in_normalization_tables(U'a'));
  CHECK(in_normalization_tables(0x00E9));
  CHECK(in_normalization_tables(0x1F600));        // emoji, 6.1
  CHECK(in_normalization_tables(0x1F91E));        // 9.0
  CHECK_FALSE(in_normalization_tables(0x1F92F));  // 10.0
  CHECK_FALSE(in_normalization_tables(0x1E06B));  // 15.0
  CHECK_FALSE(in_normalization_tables(0x0378));   // unassigned
}

TEST_CASE("normalize: invalid bytes are kept and the text around them is normalized") {
  // tok's rule for invalid UTF-8 (docs/encode.md): the bytes stay, what is
  // valid is the text it is. HF, given a string, sees U+FFFD there.
  Map m;
  CHECK(unicode_normalize("e\xCC\x81\xFF"
                          "e\xCC\x81",
                          "NFC", &m) == "\xC3\xA9\xFF\xC3\xA9");
  CHECK(m == Map{0, 3, 3, 4, 7, 7});
  CHECK(unicode_normalize("\xE5\xEF\xAC\x81", "NFKC") ==
        "\xE5"
        "fi");
}

TEST_CASE("lowercase: the full mapping, as Hugging Face's Lowercase (Rust) gives it") {
  // U+0130 LATIN CAPITAL LETTER I WITH DOT ABOVE: "i" + U+0307, not "i".
  Map m;
  CHECK(unicode_lowercase("A\u0130b", &m) == "ai\u0307b");
  CHECK(m == Map{0, 1, 3, 3, 3, 4});
  CHECK(unicode_lowercase("\u00C9") == "\u00E9");
}
