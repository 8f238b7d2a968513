// core/utf8.hpp: exact cases first, then the entry points against each
// other and against the encoder over every code point and every two- and
// three-byte sequence, so no two of them can disagree about what is valid.
#include "core/utf8.hpp"

#include <doctest/doctest.h>

#include <string>

namespace utf8 = tok::utf8;

TEST_CASE("utf8: one lead-byte rule, and valid_char_length refuses what is not whole valid UTF-8") {
  using utf8::char_length;
  using utf8::valid_char_length;
  CHECK(char_length('a') == 1);
  CHECK(char_length(0x80) == 1);  // a continuation byte cannot start a character
  CHECK(char_length(0xC3) == 2);
  CHECK(char_length(0xE4) == 3);
  CHECK(char_length(0xF0) == 4);
  CHECK(char_length(0xFF) == 1);
  CHECK(valid_char_length("a") == 1);
  CHECK(valid_char_length("\xC3\xA9x") == 2);
  CHECK(valid_char_length("\xE4\xBD") == 0);      // cut short
  CHECK(valid_char_length("\xED\xA0\x80") == 0);  // a surrogate
  CHECK(valid_char_length("\xF0\x9F\x98\x80") == 4);
  CHECK(valid_char_length("\xF4\x90\x80\x80") == 0);  // above U+10FFFF
  CHECK(valid_char_length("\x80") == 0);
}

TEST_CASE("decode_at takes a valid character whole and anything else one byte at a time") {
  auto at = [](std::string_view s) { return utf8::decode_at(s, 0); };
  CHECK(at("a").cp == 'a');
  CHECK(at("\xC3\xA9").cp == 0xE9);
  CHECK(at("\xC3\xA9").len == 2);
  CHECK(at("\xE2\x82\xAC").cp == 0x20AC);
  CHECK(at("\xF0\x9F\x98\x80").cp == 0x1F600);
  CHECK(at("\xF0\x9F\x98\x80").len == 4);
  // What the old lenient decoders took: overlong forms, encoded surrogates,
  // code points past U+10FFFF, and a lead byte cut short.
  for (std::string_view bad :
       {"\xC0\xA0", "\xC1\xBF", "\xE0\x80\xA0", "\xF0\x80\x80\xA0", "\xED\xA0\x80", "\xED\xBF\xBF",
        "\xF4\x90\x80\x80", "\xF8\x88\x80\x80\x80", "\xE4\xBD", "\xBF"}) {
    CAPTURE(bad);
    utf8::Decoded d = at(bad);
    CHECK_FALSE(d.valid);
    CHECK(d.len == 1);
    CHECK(d.cp == static_cast<unsigned char>(bad[0]));
    CHECK(utf8::symbol_length(bad) == 1);
  }
  CHECK(utf8::decode_at("x\xE4\xBD\xA0", 1).cp == 0x4F60);
}

TEST_CASE(
    "encode writes every scalar value so that every decoder reads it back, and U+FFFD for the "
    "rest") {
  std::size_t wrong = 0;
  for (char32_t cp = 0; cp <= 0x10FFFF; ++cp) {
    if (!utf8::is_scalar(cp)) continue;
    std::string s = utf8::encode(cp);
    utf8::Decoded d = utf8::decode_at(s, 0);
    std::size_t len = 0;
    char32_t fast = utf8::decode(reinterpret_cast<const unsigned char*>(s.data()), len);
    bool ok = d.valid && d.cp == cp && d.len == s.size() && fast == cp && len == s.size() &&
              utf8::valid_char_length(s) == s.size() &&
              utf8::char_length(static_cast<unsigned char>(s[0])) == s.size() &&
              utf8::valid_prefix_scalar(s) == s.size() && utf8::complete_prefix(s) == s.size() &&
              s.size() == (cp < 0x80      ? 1u
                           : cp < 0x800   ? 2u
                           : cp < 0x10000 ? 3u
                                          : 4u);
    wrong += !ok;
  }
  CHECK(wrong == 0);
  CHECK(utf8::encode(0xD800) == "\xEF\xBF\xBD");
  CHECK(utf8::encode(0xDFFF) == "\xEF\xBF\xBD");
  CHECK(utf8::encode(0x110000) == "\xEF\xBF\xBD");
  std::string out = "a";
  utf8::append(out, 0xE9);
  CHECK(out == "a\xC3\xA9");
}

TEST_CASE(
    "a two- or three-byte sequence is valid exactly when it is the encoding of its code point") {
  // The independent definition: the shortest form of a scalar value. Every
  // lead byte from 0xC0 with every one or two following bytes.
  std::size_t wrong = 0;
  for (int b0 = 0xC0; b0 <= 0xFF; ++b0) {
    for (int b1 = 0; b1 <= 0xFF; ++b1) {
      for (int b2 = 0; b2 <= (b0 >= 0xE0 ? 0xFF : 0); ++b2) {
        std::string s{static_cast<char>(b0), static_cast<char>(b1)};
        if (b0 >= 0xE0) s += static_cast<char>(b2);
        if (b0 >= 0xF0) s += "\x80";  // a four-byte lead gets a last continuation byte
        bool conts = true;
        for (std::size_t k = 1; k < s.size(); ++k)
          conts &= utf8::is_continuation(static_cast<unsigned char>(s[k]));
        std::size_t len = 0;
        char32_t cp = conts && b0 < 0xF8
                          ? utf8::decode(reinterpret_cast<const unsigned char*>(s.data()), len)
                          : 0;
        bool expect =
            conts && b0 < 0xF8 && len == s.size() && utf8::is_scalar(cp) && utf8::encode(cp) == s;
        utf8::Decoded d = utf8::decode_at(s, 0);
        bool agree = d.valid == expect && (utf8::valid_char_length(s) == s.size()) == expect &&
                     (utf8::valid_prefix_scalar(s) == s.size()) == expect &&
                     utf8::symbol_length(s) == (expect ? s.size() : 1);
        wrong += !agree;
      }
    }
  }
  CHECK(wrong == 0);
}

TEST_CASE("complete_prefix holds back only a character whose last bytes have not arrived") {
  CHECK(utf8::complete_prefix("") == 0);
  CHECK(utf8::complete_prefix("ab") == 2);
  CHECK(utf8::complete_prefix("a\xC3") == 1);
  CHECK(utf8::complete_prefix("a\xC3\xA9") == 3);
  CHECK(utf8::complete_prefix("a\xF0\x9F\x98") == 1);
  CHECK(utf8::complete_prefix("a\xF0\x9F\x98\x80") == 5);
  CHECK(utf8::complete_prefix("a\x80\x80") == 3);  // stray continuation bytes go out as they are
  CHECK(utf8::complete_prefix("\x80\x80\x80\x80\x80") == 5);
  CHECK(utf8::complete_prefix("a\xFF") == 2);  // can never start a character
}

TEST_CASE("valid_prefix_scalar stops at the first byte that is not valid UTF-8") {
  CHECK(utf8::valid_prefix_scalar("") == 0);
  CHECK(utf8::valid_prefix_scalar(std::string(40, 'a') + "\xC3\xA9") == 42);
  CHECK(utf8::valid_prefix_scalar(std::string(40, 'a') + "\xC0\xA0") == 40);
  CHECK(utf8::valid_prefix_scalar("ab\xED\xA0\x80" + std::string(40, 'a')) == 2);
  CHECK(utf8::valid_prefix_scalar("\xE4\xBD\xA0\xE4\xBD") == 3);
}
