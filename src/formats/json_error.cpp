#include "formats/json_error.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/system_memory.hpp"

namespace tok::formats {

std::string json_exception_text(std::string_view what) {
  if (what.starts_with("[json.exception.")) {
    std::size_t close = what.find("] ");
    if (close != std::string_view::npos) what.remove_prefix(close + 2);
  }
  return std::string(what);
}

std::string excerpt(std::string_view s) {
  constexpr std::size_t kMax = 40;
  if (s.size() <= kMax) return std::string(s);
  return std::string(s.substr(0, kMax)) + "...";
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

const nlohmann::json& member(const nlohmann::json& obj, const char* key) {
  static const nlohmann::json null_value;
  if (!obj.is_object()) return null_value;
  auto it = obj.find(key);
  return it == obj.end() ? null_value : *it;
}

namespace {

// Peak memory of nlohmann::json per byte of text, with margin: `tok vocab
// info -e qwen3` (an 11.4 MB tokenizer.json) peaks at 153 MB in all, the
// parsed document being most of it.
constexpr std::uint64_t kJsonBytesPerByte = 12;

// The byte where nesting first exceeds max_depth, or npos. Brackets inside
// strings do not count.
std::size_t too_deep_at(std::string_view text, std::size_t max_depth) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return i;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::string_view::npos;
}

// A parser callback that finds a key named twice in one object: an object
// that ends with fewer members than keys were read has one, which its keys
// (kept while it is open) then name. *dup receives the first found.
struct DuplicateKeys {
  std::string* dup;
  std::shared_ptr<std::vector<std::vector<std::string>>> open =
      std::make_shared<std::vector<std::vector<std::string>>>();
  bool operator()(int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) const {
    using Event = nlohmann::json::parse_event_t;
    if (event == Event::object_start) {
      open->emplace_back();
    } else if (event == Event::key) {
      open->back().push_back(parsed.get<std::string>());
    } else if (event == Event::object_end) {
      std::vector<std::string>& keys = open->back();
      if (parsed.size() < keys.size() && dup->empty()) {
        std::sort(keys.begin(), keys.end());
        *dup = *std::adjacent_find(keys.begin(), keys.end());
      }
      open->pop_back();
    }
    return true;
  }
};

}  // namespace

Result<nlohmann::json> parse_json(std::string_view text, const std::string& source,
                                  bool unique_keys) {
  if (std::size_t at = too_deep_at(text, kMaxJsonDepth); at != std::string_view::npos) {
    auto [line, col] = line_column(text, at);
    return make_error("{}:{}:{}: JSON nested deeper than {} levels", source, line, col,
                      kMaxJsonDepth);
  }
  // An allocation failing inside the parser cannot be reported: unwinding
  // destroys the half-built document, and nlohmann's destructor allocates
  // (std::terminate). So the memory the document will take is checked first.
  if (auto avail = available_memory()) {
    std::uint64_t need = kJsonBytesPerByte * std::uint64_t{text.size()};
    if (need > *avail) {
      return make_error(
          "{}: out of memory: a {} MiB JSON document needs about {} MiB to parse, "
          "{} MiB available",
          source, text.size() >> 20, need >> 20, *avail >> 20);
    }
  }
  try {
    if (!unique_keys) return nlohmann::json::parse(text.begin(), text.end());
    std::string dup;
    nlohmann::json doc = nlohmann::json::parse(text.begin(), text.end(), DuplicateKeys{&dup});
    if (!dup.empty())
      return make_error("{}: duplicate key '{}' in a JSON object", source, excerpt(dup));
    return doc;
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
