#include "bpe/tokenizer.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>

#include "core/flag_hints.hpp"

namespace tok::bpe {

Tokenizer::Tokenizer(std::string name, MergeTable table, std::vector<text::PreTokenizer> pre,
                     std::vector<SpecialToken> specials)
    : name_(std::move(name)),
      table_(std::move(table)),
      pre_(std::move(pre)),
      specials_(std::move(specials)),
      special_first_(256, 0) {
  vocab_size_ = table_.size();
  int firsts = 0;
  for (const auto& s : specials_) {
    if (!s.text.empty() && !special_first_[static_cast<unsigned char>(s.text[0])]) {
      special_first_[static_cast<unsigned char>(s.text[0])] = 1;
      only_first_ = static_cast<unsigned char>(s.text[0]);
      ++firsts;
    }
    has_always_ = has_always_ || s.always;
    has_strip_ = has_strip_ || s.lstrip || s.rstrip;
    vocab_size_ = std::max<std::size_t>(vocab_size_, std::size_t{s.id} + 1);
  }
  if (firsts != 1) only_first_ = -1;
  // The probe's one cut, after the '\n', is 3 bytes in: a general regex
  // offers none, the named scanners find it.
  constexpr std::string_view kProbe = "ab\ncd";
  can_cut_ = pre_.size() == 1 && pre_[0].safe_boundary(kProbe, 2, 2) < kProbe.size();
  // Longest match first when two specials start at the same place.
  std::stable_sort(
      specials_.begin(), specials_.end(),
      [](const SpecialToken& a, const SpecialToken& b) { return a.text.size() > b.text.size(); });
}

bool Tokenizer::is_special(TokenId id) const {
  for (const auto& s : specials_) {
    if (s.id == id) return true;
  }
  return false;
}

bool Tokenizer::has_token(TokenId id) const { return table_.has(id) || is_special(id); }

std::string_view Tokenizer::token_bytes(TokenId id) const {
  for (const auto& s : specials_) {
    if (s.id == id) return s.text;
  }
  if (table_.has(id)) return table_.bytes(id);
  return {};
}

std::pair<std::size_t, std::size_t> Tokenizer::find_special(std::string_view text, std::size_t from,
                                                            Match which) const {
  if (specials_.empty()) return {std::string_view::npos, 0};
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  for (std::size_t i = from; i < text.size(); ++i) {
    if (only_first_ >= 0) {
      // All specials start with one byte ('<' for tiktoken's): memchr to it.
      const void* hit = std::memchr(p + i, only_first_, text.size() - i);
      if (!hit) break;
      i = static_cast<std::size_t>(static_cast<const unsigned char*>(hit) - p);
    } else if (!special_first_[p[i]]) {
      continue;
    }
    for (std::size_t k = 0; k < specials_.size(); ++k) {
      if (which == Match::kAlways && !specials_[k].always) continue;
      if (which == Match::kRefusable && specials_[k].always) continue;
      const std::string& s = specials_[k].text;
      if (!s.empty() && text.compare(i, s.size(), s) == 0) return {i, k};
    }
  }
  return {std::string_view::npos, 0};
}

Status Tokenizer::check_no_specials(std::string_view text, std::uint64_t offset) const {
  auto [pos, k] = find_special(text, 0, Match::kRefusable);
  if (pos == std::string_view::npos) return {};
  return make_error("the text contains the special token {} at byte {}; {}", specials_[k].text,
                    offset + pos, hints::kRefusedSpecial);
}

namespace {
bool is_space_byte(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
}  // namespace

bool Tokenizer::matches_specials(SpecialMode mode) const {
  return has_always_ || (mode == SpecialMode::kAllow && !specials_.empty());
}

bool Tokenizer::tiles_input(SpecialMode mode) const {
  if (segment_transform_ || (has_strip_ && matches_specials(mode))) return false;
  for (unsigned b = 0; b < 256; ++b) {
    TokenId id = table_.byte_token(static_cast<unsigned char>(b));
    if (id == kNoToken || !table_.has(id)) return false;
    std::string_view bytes = table_.bytes(id);
    if (bytes.size() != 1 || static_cast<unsigned char>(bytes[0]) != b) return false;
  }
  return true;
}

std::size_t Tokenizer::next_boundary(std::string_view text, std::size_t from, std::size_t window,
                                     SpecialMode mode) const {
  if (from >= text.size() || !can_cut()) return text.size();
  std::size_t p = pre_[0].safe_boundary(text, from, window);
  if (!matches_specials(mode)) return p;
  // Not inside a special token's text, nor where its strip flags would take
  // whitespace across the cut.
  std::size_t max_special = 0;
  for (const auto& s : specials_) max_special = std::max(max_special, s.text.size());
  while (p < text.size() &&
         (inside_special(text, p, max_special) || strips_across(text, p, max_special))) {
    p = pre_[0].safe_boundary(text, p + 1, window);
  }
  return p;
}

bool Tokenizer::inside_special(std::string_view text, std::size_t p,
                               std::size_t max_special) const {
  std::size_t lo = p >= max_special ? p - max_special + 1 : 0;
  auto [at, k] = find_special(text.substr(0, p + max_special), lo);
  return at != std::string_view::npos && at < p && at + specials_[k].text.size() > p;
}

bool Tokenizer::strips_across(std::string_view text, std::size_t p, std::size_t max_special) const {
  if (!has_strip_) return false;
  std::size_t l = p, r = p;
  while (l > 0 && is_space_byte(text[l - 1])) --l;
  while (r < text.size() && is_space_byte(text[r])) ++r;
  if (l == p && r == p) return false;
  // A special with lstrip right after the whitespace around p...
  auto [at, k] = find_special(text.substr(0, r + max_special), r);
  if (at == r && specials_[k].lstrip) return true;
  // ... or one with rstrip right before it.
  std::string_view head = text.substr(0, l);
  for (std::size_t from = l >= max_special ? l - max_special : 0;;) {
    auto [a, j] = find_special(head, from);
    if (a == std::string_view::npos) return false;
    if (a + specials_[j].text.size() == l && specials_[j].rstrip) return true;
    from = a + 1;
  }
}

// Cut points `chunk` bytes apart, a quarter of that within the last `tail`
// bytes (none when tail is 0).
std::vector<std::size_t> Tokenizer::cut_points(std::string_view text, std::size_t chunk,
                                               std::size_t tail, SpecialMode mode) const {
  std::vector<std::size_t> cuts{0};
  while (cuts.back() < text.size()) {
    std::size_t step = text.size() - cuts.back() > tail ? chunk : chunk / 4;
    std::size_t from = cuts.back() + step;
    cuts.push_back(from >= text.size() ? text.size() : next_boundary(text, from, step, mode));
  }
  return cuts;
}

std::vector<std::size_t> Tokenizer::chunk_boundaries(std::string_view text, std::size_t chunk,
                                                     SpecialMode mode) const {
  return cut_points(text, chunk, 0, mode);
}

std::vector<std::size_t> Tokenizer::parallel_boundaries(std::string_view text, unsigned threads,
                                                        SpecialMode mode) const {
  return cut_points(text, kParallelChunk, std::size_t{std::max(threads, 1u)} * kParallelChunk,
                    mode);
}

Result<std::string> Tokenizer::decode(std::span<const TokenId> ids) const {
  std::string out;
  for (TokenId id : ids) {
    if (table_.has(id)) {
      out += table_.bytes(id);
    } else if (is_special(id)) {
      out += token_bytes(id);
    } else {
      return make_error("unknown token id {} (the vocabulary {} has {} ids)", id, name_,
                        vocab_size_);
    }
  }
  if (decode_transform_) return decode_transform_(out);
  return out;
}

}  // namespace tok::bpe
