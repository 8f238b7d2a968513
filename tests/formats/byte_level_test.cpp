// formats/byte_level: GPT-2's byte-to-unicode alphabet, both ways, decoded
// with core/utf8.hpp (so an overlong form of a mapped character is refused
// as HF's JSON reader would refuse it) and shared by the tokenizer.json
// writer.
#include "formats/byte_level.hpp"

#include <doctest/doctest.h>

#include <string>

using tok::formats::byte_level_decode;
using tok::formats::byte_level_encode;

TEST_CASE("byte_level: every byte round-trips, printable ones as themselves") {
  std::string all;
  for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
  std::string mapped = byte_level_encode(all);
  auto back = byte_level_decode(mapped);
  REQUIRE(back.has_value());
  CHECK(*back == all);
  CHECK(byte_level_encode(" \n!") == "\xC4\xA0\xC4\x8A!");  // Ġ Ċ !
  CHECK(byte_level_encode("\xE9") == "\xC3\xA9");           // é maps to itself
}

TEST_CASE("byte_level: characters outside the alphabet and bytes that are not UTF-8 are refused") {
  CHECK_FALSE(byte_level_decode(" ").has_value());             // space is Ġ in the alphabet
  CHECK_FALSE(byte_level_decode("\xE4\xBD\xA0").has_value());  // U+4F60
  CHECK_FALSE(byte_level_decode("\xC0\xA1").has_value());      // overlong '!'; was read as '!'
  CHECK_FALSE(byte_level_decode("\xC4").has_value());          // cut short
  CHECK(byte_level_decode("\xC4\xA0").value() == " ");
}
