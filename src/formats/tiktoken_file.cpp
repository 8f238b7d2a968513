#include "formats/tiktoken_file.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>

#include "formats/json_error.hpp"

namespace tok::formats {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

struct Base64Table {
  signed char v[256];
  Base64Table() {
    for (int i = 0; i < 256; ++i) v[i] = -1;
    for (int i = 0; i < 64; ++i)
      v[static_cast<unsigned char>(kAlphabet[i])] = static_cast<signed char>(i);
  }
};
const Base64Table kTable;

}  // namespace

bool base64_decode(std::string_view in, std::string& out) {
  out.clear();
  if (in.size() % 4 != 0 || in.empty()) return false;
  std::size_t pad = 0;
  if (in.back() == '=') pad = in[in.size() - 2] == '=' ? 2 : 1;
  out.reserve(in.size() / 4 * 3);
  for (std::size_t i = 0; i < in.size(); i += 4) {
    int a = kTable.v[static_cast<unsigned char>(in[i])];
    int b = kTable.v[static_cast<unsigned char>(in[i + 1])];
    bool last = i + 4 == in.size();
    int c = (last && pad >= 2) ? 0 : kTable.v[static_cast<unsigned char>(in[i + 2])];
    int d = (last && pad >= 1) ? 0 : kTable.v[static_cast<unsigned char>(in[i + 3])];
    if ((a | b | c | d) < 0) return false;
    std::uint32_t v = (std::uint32_t(a) << 18) | (std::uint32_t(b) << 12) |
                      (std::uint32_t(c) << 6) | std::uint32_t(d);
    out.push_back(static_cast<char>(v >> 16));
    if (!(last && pad >= 2)) out.push_back(static_cast<char>((v >> 8) & 0xff));
    if (!(last && pad >= 1)) out.push_back(static_cast<char>(v & 0xff));
  }
  return true;
}

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    std::uint32_t v = (std::uint32_t(p[i]) << 16) | (std::uint32_t(p[i + 1]) << 8) | p[i + 2];
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (std::size_t rem = bytes.size() - i) {
    std::uint32_t v = std::uint32_t(p[i]) << 16;
    if (rem == 2) v |= std::uint32_t(p[i + 1]) << 8;
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += rem == 2 ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

Status check_rank_bound(std::uint64_t rank, std::size_t entries, std::string_view owner,
                        std::string_view unit) {
  if (rank < std::uint64_t{entries} + kMaxRankGap) return {};
  return make_error("rank {} but {} has only {} {}", rank, owner, entries, unit);
}

Result<TiktokenRanks> parse_tiktoken(std::string_view text, const std::string& source) {
  TiktokenRanks r;
  auto& tokens = r.tokens;
  std::vector<std::size_t> line_of;  // (tokens.size()) line that defined each rank
  tokens.reserve(text.size() / 14);
  const std::size_t max_lines =
      static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  std::size_t pos = 0, line = 0;
  std::string decoded;
  while (pos < text.size()) {
    ++line;
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view l = text.substr(pos, eol - pos);
    pos = eol + 1;
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    if (l.empty()) continue;
    std::size_t sp = l.find(' ');
    if (sp == std::string_view::npos) {
      return make_error("{}:{}: expected 'BASE64 RANK', found no space", source, line);
    }
    std::string_view b64 = l.substr(0, sp), num = l.substr(sp + 1);
    std::uint64_t rank = 0;
    auto [end, ec] = std::from_chars(num.data(), num.data() + num.size(), rank);
    if (ec != std::errc() || end != num.data() + num.size() || rank > 0x7fffffffu) {
      return make_error("{}:{}: bad rank '{}'", source, line, excerpt(num));
    }
    if (!base64_decode(b64, decoded)) {
      return make_error("{}:{}: bad base64 token '{}'", source, line, excerpt(b64));
    }
    if (rank >= tokens.size()) {
      if (rank > tokens.size() + kMaxRankGap) {
        return make_error("{}:{}: rank {} jumps far past the {} ranks read so far", source, line,
                          rank, tokens.size());
      }
      // Each rank but a few reserved ones has its own line, so a rank far
      // past the line count cannot be valid: refuse it before allocating for
      // it (many small jumps in a 1 MB file must not allocate gigabytes).
      if (Status s = check_rank_bound(rank, max_lines, "the file", "lines"); !s.ok()) {
        return make_error("{}:{}: {}", source, line, s.error().message);
      }
      tokens.resize(rank + 1);
      line_of.resize(rank + 1, 0);
      for (std::size_t g = line_of.size() - 1; g-- > 0 && line_of[g] == 0 && !tokens[g];) {
        line_of[g] = line;  // provisional: the line that jumped over g
      }
    }
    if (tokens[rank]) {
      return make_error("{}:{}: duplicate rank {} (first on line {})", source, line, rank,
                        line_of[rank]);
    }
    tokens[rank] = decoded;
    line_of[rank] = line;
  }
  if (tokens.empty()) return make_error("{}: no tokens (empty vocabulary file)", source);
  for (std::size_t k = 0; k < tokens.size(); ++k) {
    if (!tokens[k]) r.gaps.push_back({static_cast<std::uint32_t>(k), line_of[k]});
  }
  return r;
}

std::string write_tiktoken(const std::vector<std::string>& tokens) {
  std::string out;
  out.reserve(tokens.size() * 16);
  for (std::size_t r = 0; r < tokens.size(); ++r) {
    out += base64_encode(tokens[r]);
    out += ' ';
    out += std::to_string(r);
    out += '\n';
  }
  return out;
}

Result<TiktokenSidecar> parse_sidecar(std::string_view text, const std::string& source) {
  TOK_ASSIGN(nlohmann::json j, parse_json(text, source, true));
  TiktokenSidecar s;
  if (!j.is_object() || !j.contains("pattern") || !j["pattern"].is_string()) {
    return make_error("{}: expected an object with a string \"pattern\"", source);
  }
  s.pattern = j["pattern"].get<std::string>();
  if (auto it = j.find("pattern_name"); it != j.end()) {
    if (!it->is_string()) return make_error("{}: \"pattern_name\" must be a string", source);
    s.pattern_name = it->get<std::string>();
  }
  if (j.contains("special_tokens")) {
    const auto& sp = j["special_tokens"];
    if (!sp.is_object()) return make_error("{}: \"special_tokens\" must be an object", source);
    for (auto it = sp.begin(); it != sp.end(); ++it) {
      if (!it.value().is_number_unsigned() || it.value().get<std::uint64_t>() > 0x7fffffffu) {
        return make_error("{}: special token {} needs a non-negative integer id", source, it.key());
      }
      auto id = it.value().get<bpe::TokenId>();
      // Two texts on one id would decode one as the other.
      for (const auto& other : s.specials) {
        if (other.id == id) {
          return make_error("{}: special tokens {} and {} share the id {}", source, other.text,
                            it.key(), id);
        }
      }
      s.specials.push_back({it.key(), id});
    }
  }
  return s;
}

std::string write_sidecar(const TiktokenSidecar& s) {
  nlohmann::ordered_json j;
  j["pattern"] = s.pattern;
  if (!s.pattern_name.empty()) j["pattern_name"] = s.pattern_name;
  nlohmann::ordered_json sp = nlohmann::ordered_json::object();
  for (const auto& t : s.specials) sp[t.text] = t.id;
  j["special_tokens"] = sp;
  return j.dump(2) + "\n";
}

}  // namespace tok::formats
