#include "text/escape.hpp"

#include <doctest/doctest.h>

#include <string>

using tok::text::escape_markup;
using tok::text::escape_terminal;

TEST_CASE(
    "escape_markup: entities, line breaks as references, forbidden controls and invalid bytes as "
    "U+FFFD") {
  CHECK(escape_markup("a<b>&\"c'") == "a&lt;b&gt;&amp;&quot;c&#39;");
  CHECK(escape_markup("x\ty") == "x\ty");
  CHECK(escape_markup("x\ny\rz") == "x&#10;y&#13;z");
  CHECK(escape_markup(std::string("a\x01"
                                  "b\x1b[1m",
                                  7)) ==
        "a\xEF\xBF\xBD"
        "b\xEF\xBF\xBD[1m");
  CHECK(escape_markup("\x7f") == "\x7f");  // allowed in XML 1.0
  CHECK(escape_markup("\xE4\xBD\xA0\xE4\xBD") == "\xE4\xBD\xA0\xEF\xBF\xBD\xEF\xBF\xBD");
  CHECK(escape_markup("\xC0\xAF") == "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong '/'
}

TEST_CASE(
    "escape_terminal: \\n \\r \\t named, other controls and invalid bytes as \\xNN, one line") {
  CHECK(escape_terminal("a\nb\rc\td") == "a\\nb\\rc\\td");
  CHECK(escape_terminal("\x1b[31m\x7f") == "\\x1b[31m\\x7f");
  CHECK(escape_terminal("\xC2\x9B"
                        "1m") == "\\xc2\\x9b1m");  // C1 CSI: some terminals obey it
  CHECK(escape_terminal("caf\xC3\xA9 \xE4\xBD") == "caf\xC3\xA9 \\xe4\\xbd");
  CHECK(escape_terminal("a\\b\"c") == "a\\\\b\"c");
  CHECK(escape_terminal("a\\b\"c", {.backslash = false, .quote = true}) == "a\\b\\\"c");
  CHECK(escape_terminal(std::string("\0", 1)) == "\\x00");
}

TEST_CASE("escape_json_controls: DEL and C1 controls as \\u escapes, everything else as it was") {
  using tok::text::escape_json_controls;
  CHECK(escape_json_controls("{\"a\":\"caf\xC3\xA9\"}") == "{\"a\":\"caf\xC3\xA9\"}");
  CHECK(escape_json_controls("\"x\xC2\x9B"
                             "2J\x7f\xC2\xA0\"") == "\"x\\u009b2J\\u007f\xC2\xA0\"");
  CHECK(escape_json_controls("\"\xC2\x80\xC2\x9F\"") == "\"\\u0080\\u009f\"");
}

TEST_CASE(
    "unescape_c: \\n \\r \\t \\\\ quotes and \\xHH; an unknown escape or a lone backslash is an "
    "error") {
  using tok::text::unescape_c;
  CHECK(*unescape_c("a\\nb\\tc\\rd") == "a\nb\tc\rd");
  CHECK(*unescape_c("\\\\n") == "\\n");  // an escaped backslash, then the letter n
  CHECK(*unescape_c("\\\"\\'") == "\"'");
  CHECK(*unescape_c("\\x0a\\xFF\\x00") == std::string("\n\xff\0", 3));
  CHECK(*unescape_c("plain . text") == "plain . text");
  CHECK(*unescape_c("") == "");
  CHECK(unescape_c("a\\").error().message.find("backslash ends") != std::string::npos);
  CHECK(unescape_c("\\q").error().message.find("unknown escape \\q") != std::string::npos);
  CHECK(unescape_c("\\x4").error().message.find("two hex digits") != std::string::npos);
  CHECK(unescape_c("\\xg0").error().message.find("two hex digits") != std::string::npos);
  CHECK(unescape_c("\\\x1b").error().message.find("unknown escape \\\\x1b") != std::string::npos);
}
