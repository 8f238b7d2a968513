// The two escapers for text tok writes that another program interprets: one
// for markup (HTML pages, XML and SVG charts), one for a terminal (token
// bytes on a line, and every name or message tok prints). Each states its
// policy for control bytes and for bytes that are not UTF-8, so every page
// and every line treats them alike. Also their inverse for arguments: C-style
// escapes in strings given on the command line (`--stop "\n"`).
#pragma once

#include <string>
#include <string_view>

#include "core/result.hpp"

namespace tok::text {

// HTML/XML text and attribute values:
//  - & < > " ' become &amp; &lt; &gt; &quot; &#39;;
//  - tab stays; line feed and carriage return become &#10; and &#13;, so
//    they survive inside attribute values (where parsers would turn them
//    into spaces);
//  - every other C0 control byte becomes U+FFFD: XML 1.0 forbids them, even
//    as character references (DEL and the C1 controls are allowed);
//  - each byte that is not part of valid UTF-8 becomes U+FFFD.
std::string escape_markup(std::string_view s);

struct TerminalEscape {
  bool backslash = true;  // a backslash as \\ (false: regex patterns, shown as written)
  bool quote = false;     // a double quote as \"
};

// One printable line for a terminal, from which the bytes can be read back:
//  - valid UTF-8 characters stay as they are, except controls;
//  - line feed, carriage return and tab become \n, \r and \t;
//  - every other C0 control, DEL and the C1 controls (U+0080-U+009F, which
//    some terminals obey) become \xNN, one per byte;
//  - each byte that is not part of valid UTF-8 becomes \xNN;
//  - a backslash becomes \\ and a double quote \" as `options` say.
std::string escape_terminal(std::string_view bytes, TerminalEscape options = {});

// JSON text (as nlohmann::json dumps it, C0 controls already \u-escaped)
// with DEL and the C1 controls written \u007f, \u0080..\u009f too: JSON
// allows them raw, and a terminal showing the JSON would obey them. Outside
// strings JSON is ASCII, so only string contents change, and they mean the same.
std::string escape_json_controls(std::string json);

// The bytes a command-line string means, with C-style escapes as llama.cpp's
// arguments take them: \n \r \t \\ \" \' and \xHH (two hex digits, any
// byte). Any other backslash sequence, and a backslash at the end, is an
// error that names it, so a typo is never taken as literal text.
Result<std::string> unescape_c(std::string_view s);

}  // namespace tok::text
