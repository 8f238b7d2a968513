// chat/js_text: JavaScript's string functions on UTF-8, with the bytes that
// are not UTF-8 pinned: core/utf8.hpp decodes strictly, so an overlong form
// or an encoded surrogate is a run of single bytes, never whitespace, and
// JSON.stringify writes U+FFFD for each (the JavaScript reference would have
// decoded each to U+FFFD before the template ran).
#include "chat/js_text.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "chat/template.hpp"

using namespace tok::chat;

TEST_CASE("js_trim strips JavaScript's whitespace, Unicode spaces included") {
  CHECK(js_trim(" \t\n\v\f\ra \r\n") == "a");
  CHECK(js_trim("\xC2\xA0"
                "a"
                "\xE3\x80\x80") == "a");  // U+00A0, U+3000
  CHECK(js_trim("\xEF\xBB\xBF"
                "a"
                "\xE2\x80\xA8") == "a");  // U+FEFF, U+2028
  CHECK(js_trim_start("\xE2\x80\x8B"
                      "a") ==
        "\xE2\x80\x8B"
        "a");  // U+200B is not \s
  CHECK(js_space_at("a ", 1) == 1);
  CHECK(js_space_before("a\xE3\x80\x80", 4) == 3);
}

TEST_CASE("an overlong space or an invalid byte is not whitespace") {
  // C0 A0 is an overlong U+0020; the old lenient decoder trimmed it.
  CHECK(js_space_at("\xC0\xA0", 0) == 0);
  CHECK(js_trim("\xC0\xA0"
                "a"
                "\xC0\xA0") ==
        "\xC0\xA0"
        "a"
        "\xC0\xA0");
  // E0 80 A0, an overlong U+0020 in three bytes, and C2 alone.
  CHECK(js_trim("\xE0\x80\xA0") == "\xE0\x80\xA0");
  CHECK(js_space_at("\xC2", 0) == 0);
}

TEST_CASE("code_points: a valid character whole, every byte that is not UTF-8 on its own") {
  using V = std::vector<std::string>;
  CHECK(code_points("a\xC3\xA9\xF0\x9F\x98\x80") == V{"a", "\xC3\xA9", "\xF0\x9F\x98\x80"});
  CHECK(code_points("a\xC0\x80"
                    "b") == V{"a", "\xC0", "\x80", "b"});           // overlong NUL
  CHECK(code_points("\xED\xA0\x80") == V{"\xED", "\xA0", "\x80"});  // encoded surrogate
  CHECK(code_points("\xE4\xBD"
                    "a") == V{"\xE4", "\xBD", "a"});  // cut short
}

TEST_CASE(
    "json_quote escapes as JSON.stringify does, and writes U+FFFD for bytes that are not UTF-8") {
  CHECK(json_quote("a\"\\\n\x01", false) == "\"a\\\"\\\\\\n\\u0001\"");
  CHECK(json_quote("\xC3\xA9\xF0\x9F\x98\x80", false) == "\"\xC3\xA9\xF0\x9F\x98\x80\"");
  CHECK(json_quote("\xC3\xA9\xF0\x9F\x98\x80\x7F", true) == "\"\\u00e9\\ud83d\\ude00\\u007f\"");
  CHECK(json_quote("\xE5", false) == "\"\xEF\xBF\xBD\"");
  CHECK(json_quote("\xE5", true) == "\"\\ufffd\"");
  CHECK(json_quote("\xC0\x80", true) == "\"\\ufffd\\ufffd\"");             // not \u0000
  CHECK(json_quote("\xED\xA0\x80", true) == "\"\\ufffd\\ufffd\\ufffd\"");  // not \ud800
}

TEST_CASE("a template's \\u escape of a lone surrogate is U+FFFD, the rest are the character") {
  auto render = [](const std::string& tpl) {
    auto t = Template::parse(tpl);
    REQUIRE(t.ok());
    auto r = t->render(nlohmann::json::object());
    REQUIRE(r.ok());
    return *r;
  };
  CHECK(render("{{ '\\u00e9\\u4f60' }}") == "\xC3\xA9\xE4\xBD\xA0");
  CHECK(render("{{ '\\ud800|\\udfff' }}") == "\xEF\xBF\xBD|\xEF\xBF\xBD");
  CHECK(render("{{ '\\x41' }}") == "A");
  // A string literal holding bytes that are not UTF-8 (a GGUF's template):
  // one character each, and U+FFFD once quoted.
  CHECK(render("{{ '\xC0\xA0x' | length }}") == "3");
  CHECK(render("{{ '\xE5' | tojson }}") == "\"\xEF\xBF\xBD\"");
}
