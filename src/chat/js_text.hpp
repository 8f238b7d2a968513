// String operations with JavaScript's meaning, on UTF-8: what
// @huggingface/jinja's filters and methods do (trim strips JavaScript's
// whitespace set, Unicode spaces included; JSON.stringify escapes).
// Indexing counts code points; JavaScript counts UTF-16 units, which differs
// only for characters outside the Basic Multilingual Plane. Characters are
// decoded by core/utf8.hpp, strictly: a byte that is not UTF-8 (an overlong
// form, an encoded surrogate, a stray byte of a template read from a GGUF
// file) is one character of its own and never whitespace; the JavaScript
// reference would have read it as U+FFFD, which is what json_quote writes.
// Template text parsed from JSON (tokenizer_config.json, messages) is always
// valid UTF-8: nlohmann::json refuses anything else.
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
// Bytes that are not UTF-8 come out as U+FFFD (\ufffd with ensure_ascii).
std::string json_quote(std::string_view s, bool ensure_ascii);

}  // namespace tok::chat
