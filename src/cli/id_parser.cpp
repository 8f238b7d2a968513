#include "cli/id_parser.hpp"

#include <cctype>
#include <charconv>

namespace tok::cli {
namespace {

bool separator(char c) { return std::isspace(static_cast<unsigned char>(c)) || c == ','; }

}  // namespace

Status IdParser::parse(std::string_view s, std::vector<bpe::TokenId>& out) {
  std::size_t i = 0;
  auto skip = [&] {
    while (i < s.size() && separator(s[i])) ++i;
  };
  for (;;) {
    skip();
    if (i >= s.size()) return {};
    if (closed_) return make_error("{}: unexpected text after ']' at byte {}", source_, base_ + i);
    if (!started_) {
      started_ = true;
      if (s[i] == '[') {
        bracket_ = true;
        ++i;
        continue;
      }
    }
    if (bracket_ && s[i] == ']') {
      closed_ = true;
      ++i;
      continue;
    }
    std::uint64_t v = 0;
    auto [end, ec] = std::from_chars(s.data() + i, s.data() + s.size(), v);
    std::size_t len = static_cast<std::size_t>(end - (s.data() + i));
    if (ec != std::errc() || len == 0 || v > 0xffffffffu) {
      std::size_t e = i;
      while (e < s.size() && !std::isspace(static_cast<unsigned char>(s[e])) && s[e] != ',') ++e;
      return make_error("{}: '{}' is not a token id (expected non-negative integers)", source_,
                        s.substr(i, std::min<std::size_t>(e - i, 40)));
    }
    out.push_back(static_cast<bpe::TokenId>(v));
    i += len;
    if (i < s.size() && !separator(s[i]) && s[i] != ']') {
      return make_error("{}: unexpected character '{}' at byte {}", source_, s[i], base_ + i);
    }
  }
}

Status IdParser::feed(std::string_view bytes, std::vector<bpe::TokenId>& out) {
  carry_.append(bytes);
  // Up to the last separator: no id (nor a bad one's quoted text) is cut
  // there.
  std::size_t cut = carry_.size();
  while (cut > 0 && !separator(carry_[cut - 1])) --cut;
  if (cut == 0) return {};
  TOK_TRY(parse(std::string_view(carry_).substr(0, cut), out));
  carry_.erase(0, cut);
  base_ += cut;
  return {};
}

Status IdParser::finish(std::vector<bpe::TokenId>& out) {
  TOK_TRY(parse(carry_, out));
  base_ += carry_.size();
  carry_.clear();
  if (bracket_ && !closed_)
    return make_error("{}: missing ']' at the end of the JSON array", source_);
  return {};
}

Status parse_ids(std::string_view text, const std::string& source, std::vector<bpe::TokenId>& out) {
  IdParser p(source);
  TOK_TRY(p.feed(text, out));
  return p.finish(out);
}

}  // namespace tok::cli
