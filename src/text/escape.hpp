// The two escapers for text tok writes that another program interprets: one
// for markup (HTML pages, XML and SVG charts), one for a terminal (token
// bytes on a line). Each states its policy for control bytes and for bytes
// that are not UTF-8, so every page and every line treats them alike.
#pragma once

#include <string>
#include <string_view>

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

}  // namespace tok::text
