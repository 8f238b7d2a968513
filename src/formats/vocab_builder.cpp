#include "formats/vocab_builder.hpp"

#include <algorithm>
#include <unordered_map>

#include "formats/byte_level.hpp"
#include "formats/json_error.hpp"

namespace tok::formats {

int byte_fallback_value(std::string_view t) {
  if (t.size() != 6 || !t.starts_with("<0x") || t[5] != '>') return -1;
  auto hex = [](char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  int hi = hex(t[3]), lo = hex(t[4]);
  return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

Result<bpe::MergeTable> build_merge_table(VocabSpec spec, const std::string& source) {
  using bpe::TokenId;
  std::size_t n = spec.tokens.size();
  std::unordered_map<std::string_view, TokenId> by_string;
  by_string.reserve(n * 2);
  for (TokenId id = 0; id < n; ++id) {
    if (spec.tokens[id]) by_string.emplace(*spec.tokens[id], id);
  }
  bpe::MergeTable::Options opt;
  opt.whole_piece_lookup = spec.ignore_merges;
  opt.unk = spec.unk;
  std::vector<std::optional<std::string>> bytes(n);
  if (spec.byte_level) {
    opt.initial = bpe::InitialSymbols::kBytes;
    for (TokenId id = 0; id < n; ++id) {
      if (!spec.tokens[id]) continue;
      bytes[id] = byte_level_decode(*spec.tokens[id]);
      if (!bytes[id]) {
        return make_error("{}: token {} ('{}') is not in GPT-2's byte-level encoding", source, id,
                          *spec.tokens[id]);
      }
    }
  } else {
    opt.initial = bpe::InitialSymbols::kCharsByteFallback;
    opt.byte_tokens.assign(256, spec.unk);
    for (TokenId id = 0; id < n; ++id) {
      if (!spec.tokens[id]) continue;
      int b = spec.byte_fallback ? byte_fallback_value(*spec.tokens[id]) : -1;
      if (b >= 0) {
        bytes[id] = std::string(1, static_cast<char>(b));
        opt.byte_tokens[static_cast<std::size_t>(b)] = id;
      } else {
        bytes[id] = *spec.tokens[id];
      }
    }
  }
  Result<bpe::MergeTable> table = Error{};
  if (spec.use_scores) {
    // Rank = position in descending score order; equal scores share a rank
    // (ties go to the leftmost pair, as in SentencePiece and llama.cpp).
    if (spec.scores.size() != n) {
      return make_error("{}: {} scores for {} tokens", source, spec.scores.size(), n);
    }
    std::vector<float> sorted;
    for (TokenId id = 0; id < n; ++id) {
      if (bytes[id]) sorted.push_back(spec.scores[id]);
    }
    std::sort(sorted.begin(), sorted.end(), std::greater<float>());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    std::vector<std::uint32_t> priority(n, bpe::kNoRank);
    for (TokenId id = 0; id < n; ++id) {
      if (!bytes[id]) continue;
      if (spec.byte_fallback && byte_fallback_value(*spec.tokens[id]) >= 0) continue;
      auto it =
          std::lower_bound(sorted.begin(), sorted.end(), spec.scores[id], std::greater<float>());
      priority[id] = static_cast<std::uint32_t>(it - sorted.begin());
    }
    table = bpe::MergeTable::from_priorities(std::move(bytes), std::move(priority), opt);
  } else {
    std::vector<bpe::MergeTable::Merge> merges;
    merges.reserve(spec.merges.size());
    for (std::size_t i = 0; i < spec.merges.size(); ++i) {
      const auto& [a, b] = spec.merges[i];
      auto ia = by_string.find(a), ib = by_string.find(b);
      if (ia == by_string.end() || ib == by_string.end()) {
        return make_error("{}: merge {} ('{} {}'): token '{}' is not in the vocabulary", source,
                          i + 1, excerpt(a), excerpt(b), excerpt(ia == by_string.end() ? a : b));
      }
      merges.push_back({ia->second, ib->second});
    }
    table = bpe::MergeTable::from_merges(std::move(bytes), merges, opt);
  }
  if (!table.ok()) return make_error("{}: {}", source, table.error().message);
  return table;
}

}  // namespace tok::formats
