#include "formats/word_counts_file.hpp"

#include <nlohmann/json.hpp>

#include <charconv>

#include "formats/tiktoken_file.hpp"

namespace tok::formats {

std::string write_word_counts(const bpe::WordCounts& counts, std::string_view pattern) {
  std::string out(kWordCountsMagic);
  out += nlohmann::json(std::string(pattern)).dump();
  out += '\n';
  for (std::uint32_t i : counts.sorted_order()) {
    out += std::to_string(counts.count(i));
    out += '\t';
    out += base64_encode(counts.word(i));
    out += '\n';
  }
  return out;
}

Result<std::string> read_word_counts(std::string_view text, const std::string& source,
                                     bpe::WordCounts& into) {
  if (!text.starts_with(kWordCountsMagic)) {
    return make_error(
        "{}: not a word-count table (expected a first line starting '#tok-word-counts v1')",
        source);
  }
  std::size_t eol = text.find('\n');
  if (eol == std::string_view::npos) eol = text.size();
  auto j =
      nlohmann::json::parse(text.substr(kWordCountsMagic.size(), eol - kWordCountsMagic.size()),
                            nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_string()) {
    return make_error("{}:1: the pattern after '#tok-word-counts v1' must be a JSON string",
                      source);
  }
  std::string pattern = j.get<std::string>();
  std::string word;
  std::size_t line = 1;
  for (std::size_t pos = eol + 1; pos < text.size();) {
    ++line;
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view l = text.substr(pos, end - pos);
    pos = end + 1;
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    if (l.empty()) continue;
    std::size_t tab = l.find('\t');
    std::uint64_t count = 0;
    auto [p, ec] =
        std::from_chars(l.data(), l.data() + (tab == std::string_view::npos ? 0 : tab), count);
    if (tab == std::string_view::npos || ec != std::errc() || p != l.data() + tab) {
      return make_error("{}:{}: expected 'COUNT<TAB>BASE64'", source, line);
    }
    if (!base64_decode(l.substr(tab + 1), word)) {
      return make_error("{}:{}: bad base64 word '{}'", source, line, l.substr(tab + 1));
    }
    into.add(word, count);
  }
  return pattern;
}

}  // namespace tok::formats
