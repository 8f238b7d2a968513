// MergeTable's tables for character-first initial symbols
// (bpe/char_symbols.hpp says why they make it exact): the trie of the tokens
// that can split a character from its neighbour, and the outranked
// characters.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "bpe/char_symbols.hpp"
#include "bpe/merge_table.hpp"
#include "core/utf8.hpp"

namespace tok::bpe {

namespace {

constexpr std::uint64_t kEdgesShift = 32;
constexpr std::uint64_t kTokenBit = std::uint64_t{1} << 48;

std::uint32_t node_first(std::uint64_t node) { return static_cast<std::uint32_t>(node); }
std::uint32_t node_edges(std::uint64_t node) {
  return static_cast<std::uint32_t>((node >> kEdgesShift) & 0xffff);
}

// Does the token hold, after its first byte, a byte that is not a
// continuation byte (where it would span a character boundary of a text)?
bool spans_a_boundary(std::string_view t) {
  for (std::size_t j = 1; j < t.size(); ++j) {
    if (!utf8::is_continuation(static_cast<unsigned char>(t[j]))) return true;
  }
  return false;
}

}  // namespace

bool MergeTable::outranked_char(std::uint32_t code) const {
  return std::binary_search(outranked_chars_.begin(), outranked_chars_.end(), code);
}

void MergeTable::build_chars() {
  if (!ranked() || options_.initial != InitialSymbols::kBytes) return;
  std::vector<std::string> splitters;
  std::vector<std::uint32_t> outranked;
  for (TokenId id = 0; id < size(); ++id) {
    if (!present_[id]) continue;
    std::string_view t = bytes(id);
    if (utf8::valid_prefix_scalar(t) != t.size()) {
      if (spans_a_boundary(t)) splitters.emplace_back(t);
      continue;
    }
    // A valid token of two or more characters must rank after the token of
    // each of its multi-byte characters; a character it does not rank after
    // never starts merged.
    if (utf8::valid_char_length(t) == t.size()) continue;  // one character (or empty)
    const auto* b = reinterpret_cast<const unsigned char*>(t.data());
    for (std::size_t i = 0; i < t.size();) {
      std::size_t len = utf8::valid_char_length(t.substr(i));
      if (len >= 2) {
        TokenId c = find(t.substr(i, len));
        if (c != kNoToken && rank_of(id) <= rank_of(c)) outranked.push_back(char_code(b + i, len));
      }
      i += len;
    }
  }
  std::sort(outranked.begin(), outranked.end());
  outranked.erase(std::unique(outranked.begin(), outranked.end()), outranked.end());
  outranked_chars_.own() = std::move(outranked);
  outranked_chars_.sync();

  // The trie, breadth-first so that each node's edges are contiguous: the
  // sorted tokens sharing a prefix form one range at every depth.
  std::sort(splitters.begin(), splitters.end());
  splitters.erase(std::unique(splitters.begin(), splitters.end()), splitters.end());
  std::vector<std::uint64_t>& nodes = split_nodes_.own();
  std::vector<std::uint32_t>& edges = split_edges_.own();
  nodes.assign(1, 0);
  struct Pending {
    std::size_t from, to, depth;  // splitters[from, to) share depth bytes
    std::uint32_t node;
  };
  std::vector<Pending> level{{0, splitters.size(), 0, 0}}, next;
  while (!level.empty()) {
    next.clear();
    for (const Pending& q : level) {
      std::size_t i = q.from;
      // A token that is exactly this prefix marks the node; it sorts first.
      while (i < q.to && splitters[i].size() == q.depth) {
        nodes[q.node] |= kTokenBit;
        ++i;
      }
      std::uint32_t first = static_cast<std::uint32_t>(edges.size()), count = 0;
      while (i < q.to) {
        unsigned char c = static_cast<unsigned char>(splitters[i][q.depth]);
        std::size_t j = i;
        while (j < q.to && static_cast<unsigned char>(splitters[j][q.depth]) == c) ++j;
        auto child = static_cast<std::uint32_t>(nodes.size());
        nodes.push_back(0);
        edges.push_back(std::uint32_t{c} << 24 | child);
        next.push_back({i, j, q.depth + 1, child});
        ++count;
        i = j;
      }
      nodes[q.node] |= first | std::uint64_t{count} << kEdgesShift;
    }
    level.swap(next);
  }
  if (nodes.size() >= (std::size_t{1} << 24) - 1) {  // beyond the edge's 24 bits: no trie
    nodes.clear();
    edges.clear();
  }
  split_nodes_.sync();
  split_edges_.sync();
  finish_chars();
}

// The slot of key (node << 8 | byte) + 1 in a map of mask + 1 slots.
std::uint64_t MergeTable::split_slot(std::uint32_t key) const {
  return (std::uint64_t{key} * 0x9E3779B97F4A7C15ull >> 32) & split_mask_;
}

void MergeTable::finish_chars() {
  split_next_.clear();
  split_mask_ = 0;
  std::fill(std::begin(split_root_), std::end(split_root_), 0);
  if (split_nodes_.empty()) return;
  std::size_t cap = 64;
  while (cap < 2 * split_edges_.size()) cap *= 2;
  split_next_.assign(cap, 0);
  split_mask_ = cap - 1;
  for (std::size_t i = 0; i < split_nodes_.size(); ++i) {
    std::uint64_t v = split_nodes_[i];
    for (std::uint32_t e = 0; e < node_edges(v); ++e) {
      std::uint32_t edge = split_edges_[node_first(v) + e];
      if (i == 0) split_root_[edge >> 24] = edge & 0xffffff;
      std::uint32_t key = (static_cast<std::uint32_t>(i) << 8 | edge >> 24) + 1;
      std::uint64_t s = split_slot(key);
      while (split_next_[s]) s = (s + 1) & split_mask_;
      split_next_[s] = std::uint64_t{key} << 32 | (edge & 0xffffff);
    }
  }
}

std::uint32_t MergeTable::split_child(std::uint32_t node, unsigned char byte) const {
  std::uint32_t key = (node << 8 | byte) + 1;
  for (std::uint64_t s = split_slot(key);; s = (s + 1) & split_mask_) {
    std::uint64_t v = split_next_[s];
    if (!v) return 0;
    if ((v >> 32) == key) return static_cast<std::uint32_t>(v);
  }
}

bool MergeTable::check_chars() const {
  const std::size_t n = split_nodes_.size(), m = split_edges_.size();
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t node = split_nodes_[i];
    if ((node >> 49) != 0 || node_edges(node) > 256 ||
        std::uint64_t{node_first(node)} + node_edges(node) > m) {
      return false;
    }
  }
  for (std::size_t e = 0; e < m; ++e) {
    std::uint32_t child = split_edges_[e] & 0xffffff;
    if (child == 0 || child >= n) return false;
  }
  return true;
}

void MergeTable::mark_unclean(std::string_view piece, std::uint8_t* unclean) const {
  const auto* b = reinterpret_cast<const unsigned char*>(piece.data());
  const std::size_t n = piece.size();
  for (std::size_t a = 0; a + 1 < n; ++a) {
    std::uint32_t node = split_root_[b[a]];  // a child is never 0 (the root)
    for (std::size_t k = a + 1; node && k < n; ++k) {
      node = split_child(node, b[k]);
      if (node && (split_nodes_[node] & kTokenBit)) {
        // A token over bytes a..k: every character boundary inside it.
        for (std::size_t p = a + 1; p <= k; ++p) {
          if (!utf8::is_continuation(b[p])) unclean[p] = 1;
        }
      }
    }
  }
}

}  // namespace tok::bpe
