#include "formats/json_error.hpp"

#include <algorithm>

namespace tok::formats {

std::string json_exception_text(std::string_view what) {
  if (what.starts_with("[json.exception.")) {
    std::size_t close = what.find("] ");
    if (close != std::string_view::npos) what.remove_prefix(close + 2);
  }
  return std::string(what);
}

std::pair<std::size_t, std::size_t> line_column(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

Result<nlohmann::json> parse_json(std::string_view text, const std::string& source) {
  try {
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is 1-based and points just past the offending character.
    std::size_t off = e.byte > 0 ? e.byte - 1 : 0;
    auto [line, col] = line_column(text, off);
    std::string what = e.what();
    // nlohmann messages look like "[json.exception.parse_error.101] parse error at line 1,
    // column 2: syntax error while parsing value - invalid literal; last read: 'x'".
    auto p = what.find("syntax error");
    if (p == std::string::npos) p = what.find(": ");
    std::string detail = p == std::string::npos ? what : what.substr(p);
    return make_error("{}:{}:{}: malformed JSON: {}", source, line, col, detail);
  } catch (const std::exception& e) {
    return make_error("{}: malformed JSON: {}", source, e.what());
  }
}

}  // namespace tok::formats
