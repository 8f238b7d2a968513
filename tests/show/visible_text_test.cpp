#include <doctest/doctest.h>

#include "show/text_measure.hpp"
#include "show/visible_text.hpp"

using namespace tok::show;

namespace {
std::string drawn(std::string_view bytes) {
  std::string out;
  for (const auto& g : visible_glyphs(bytes)) out += g.text;
  return out;
}
}  // namespace

TEST_CASE("invisible characters are drawn") {
  CHECK(drawn("a b") == "a·b");
  CHECK(drawn("\t\n") == "→↵");
  CHECK(drawn("x\xe2\x80\x8dy") == "x⟨ZWJ⟩y");
  CHECK(drawn("\xef\xbb\xbf") == "⟨BOM⟩");
  CHECK(drawn("\xe2\x80\x8b\xe2\x80\x8c\xe2\x81\xa0") == "⟨ZWSP⟩⟨ZWNJ⟩⟨WJ⟩");
  CHECK(drawn("\x1b[31m") == "␛[31m");  // no raw escape reaches the terminal
  CHECK(drawn("\r") == "␍");
  CHECK(drawn("\xe2\x80\xae") == "⟨RLO⟩");
}

TEST_CASE("partial UTF-8 is drawn as hex") {
  CHECK(drawn("\xe4\xbd") == "⟨e4 bd⟩");
  CHECK(drawn("a\xa0") == "a⟨a0⟩");
  CHECK(drawn("\xe4\xbd\xa0") == "你");
  auto g = visible_glyphs(
      "\xff\xfe"
      "ab");
  REQUIRE(g.size() == 2);
  CHECK(g[0].kind == GlyphKind::kBytes);
  CHECK(g[1].kind == GlyphKind::kText);
  CHECK(g[1].text == "ab");
}

TEST_CASE("glyph widths") {
  CHECK(display_width("abc") == 3);
  CHECK(display_width("你好") == 4);
  CHECK(display_width("e\xcc\x81") == 1);  // e + combining acute
  auto g = visible_glyphs("你 ");
  REQUIRE(g.size() == 2);
  CHECK(g[0].width == 2);
  CHECK(g[1].width == 1);
}

TEST_CASE("characters and words by ICU") {
  auto m = measure_text("Hello, world! e\xcc\x81t\xc3\xa9 42").value();
  CHECK(m.bytes == 23);
  CHECK(m.graphemes == 20);  // e + U+0301 is one character
  CHECK(m.words == 4);       // Hello, world, été, 42
  auto flag = measure_text("\xf0\x9f\x87\xab\xf0\x9f\x87\xb7").value();  // 🇫🇷
  CHECK(flag.graphemes == 1);
  CHECK(measure_text("").value().graphemes == 0);
  CHECK(measure_text("\xff\xfe").value().graphemes == 2);
}
