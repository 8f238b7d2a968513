// String operations with JavaScript's meaning, on UTF-8: what
// @huggingface/jinja's filters and methods do (trim strips JavaScript's
// whitespace set, Unicode spaces included; JSON.stringify escapes).
// Indexing counts code points; JavaScript counts UTF-16 units, which differs
// only for characters outside the Basic Multilingual Plane.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace tok::chat {

// Length in bytes of the JavaScript whitespace character at s[pos] (\s:
// ASCII spaces, U+00A0, U+1680, U+2000-U+200A, U+2028/9, U+202F, U+205F,
// U+3000, U+FEFF), or 0.
std::size_t js_space_at(std::string_view s, std::size_t pos);
// Length of the whitespace character that ends s[0, end), or 0.
std::size_t js_space_before(std::string_view s, std::size_t end);
std::string_view js_trim_start(std::string_view s);
std::string_view js_trim_end(std::string_view s);
std::string_view js_trim(std::string_view s);

// The code points of s as separate UTF-8 strings (invalid bytes one each).
std::vector<std::string> code_points(std::string_view s);
std::string ascii_upper(std::string_view s);
std::string ascii_lower(std::string_view s);
// JSON.stringify of a string; ensure_ascii escapes everything past 0x7e.
std::string json_quote(std::string_view s, bool ensure_ascii);
// Appends code point cp as UTF-8.
void append_utf8(std::string& out, unsigned cp);

}  // namespace tok::chat
