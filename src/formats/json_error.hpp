// parse_json: nlohmann::json parsing that never throws and reports errors as
// "SOURCE:LINE:COLUMN: what is wrong".
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

#include "core/result.hpp"

namespace tok::formats {

// With unique_keys, an object naming a key twice is an error naming the key
// (nlohmann keeps the last silently: for a vocabulary, a token's first id
// then vanished with a misleading error far from its cause). Vocabularies
// ask for it; chat and catalog inputs keep JSON's usual last-wins.
Result<nlohmann::json> parse_json(std::string_view text, const std::string& source,
                                  bool unique_keys = false);

// nlohmann's message without its "[json.exception.type_error.302] " prefix.
std::string json_exception_text(std::string_view what);

// Runs f, a reader of a parsed document returning Result<T>. A value of the
// wrong kind where the reader expected another (nlohmann throws type and
// range errors for those) becomes "SOURCE: unexpected JSON: what", never an
// exception: a hand-edited or hostile file gets a one-line error naming it.
template <class F>
auto guard_json(const std::string& source, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const nlohmann::json::exception& e) {
    return make_error("{}: unexpected JSON: {}", source, json_exception_text(e.what()));
  }
}

// obj[key] by reference, or a null value (which iterates as empty) when obj
// is not an object or lacks the key. json::value(key, default) returns a copy
// of the whole subtree: at every level of a nested Sequence, that was
// quadratic (4.5 GB for a 5,000-deep one).
const nlohmann::json& member(const nlohmann::json& obj, const char* key);

// JSON nested deeper than this is refused by parse_json (before parsing):
// nlohmann's copy, comparison and dump recurse once per level, so a hostile
// file of 100,000 '[' would overflow the stack.
inline constexpr std::size_t kMaxJsonDepth = 256;

// Quoted file content in a message, cut short: a corrupt file may hold one
// 100 MB line.
std::string excerpt(std::string_view s);

// Line and column (1-based) of a byte offset.
std::pair<std::size_t, std::size_t> line_column(std::string_view text, std::size_t offset);

}  // namespace tok::formats
