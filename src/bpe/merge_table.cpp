#include "bpe/merge_table.hpp"

#include <algorithm>
#include <bit>
#include <utility>

#include "bpe/pair_map.hpp"

namespace tok::bpe {
namespace {

std::uint64_t table_size_for(std::size_t n) {
  // Load factor at most 1/2: short probe chains for the hot lookup.
  return std::bit_ceil(std::max<std::size_t>(16, n * 2));
}

std::size_t count_present(const TableArray<std::uint8_t>& present) {
  std::size_t live = 0;
  for (std::uint8_t p : present) live += p;
  return live;
}

}  // namespace

Status MergeTable::build_index(std::string_view source) {
  std::size_t n = size();
  std::uint64_t cap = table_size_for(count_present(present_));
  std::vector<IndexSlot>& index = index_.own();
  index.assign(cap, IndexSlot{});
  index_mask_ = cap - 1;
  for (TokenId id = 0; id < n; ++id) {
    if (!present_[id]) continue;
    std::string_view b = bytes(id);
    std::uint64_t h = hash_bytes(b);
    std::uint64_t i = h & index_mask_;
    bool skip = false;
    for (; index[i].id_plus1 != 0; i = (i + 1) & index_mask_) {
      TokenId other = index[i].id_plus1 - 1;
      if (this->bytes(other) != b) continue;
      // Byte-fallback vocabularies legitimately hold "<0x41>" and "A" with
      // the same bytes; the index keeps the ordinary token.
      if (options_.initial != InitialSymbols::kCharsByteFallback) {
        return make_error("{}: duplicate token: ids {} and {} have the same bytes", source, other,
                          id);
      }
      const auto& bt = options_.byte_tokens;
      if (std::find(bt.begin(), bt.end(), other) != bt.end()) index[i].id_plus1 = id + 1;
      skip = true;
      break;
    }
    if (skip) continue;
    index[i] = {head8(b), id + 1, slot_meta(h, b.size())};
  }
  index_.sync();
  return {};
}

void MergeTable::finish_byte_tokens() {
  for (int b = 0; b < 256; ++b) {
    if (!options_.byte_tokens.empty()) {
      byte_tokens_[b] = options_.byte_tokens[b];
    } else {
      char c = static_cast<char>(b);
      byte_tokens_[b] = find(std::string_view(&c, 1));
    }
  }
  priority_is_id_ = ranked();
  for (std::size_t id = 0; id < priority_.size(); ++id) {
    if (present_[id] && priority_[id] != id) priority_is_id_ = false;
  }
  pairs_by_id_ = true;
  for (int b = 0; b < 256 && ranked(); ++b) {
    TokenId id = byte_tokens_[b];
    char c = static_cast<char>(b);
    if (id != kNoToken && (!has(id) || bytes(id) != std::string_view(&c, 1))) pairs_by_id_ = false;
  }
}

void MergeTable::sync_tokens() {
  arena_.sync();
  offsets_.sync();
  present_.sync();
}

Result<MergeTable> MergeTable::from_ranks(std::vector<std::string> token_bytes) {
  std::vector<std::optional<std::string>> tokens;
  tokens.reserve(token_bytes.size());
  std::vector<std::uint32_t> priority(token_bytes.size());
  for (std::size_t i = 0; i < token_bytes.size(); ++i) {
    tokens.emplace_back(std::move(token_bytes[i]));
    priority[i] = static_cast<std::uint32_t>(i);
  }
  return from_priorities(std::move(tokens), std::move(priority), Options{});
}

namespace {
// Fills arena/offsets/present from optional token bytes.
void fill_tokens(std::vector<std::optional<std::string>>& tokens, std::vector<char>& arena,
                 std::vector<std::size_t>& offsets, std::vector<std::uint8_t>& present) {
  std::size_t total = 0;
  for (auto& t : tokens) total += t ? t->size() : 0;
  arena.reserve(total);
  offsets.reserve(tokens.size() + 1);
  present.assign(tokens.size(), 0);
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    offsets.push_back(arena.size());
    if (tokens[i]) {
      arena.insert(arena.end(), tokens[i]->begin(), tokens[i]->end());
      present[i] = 1;
    }
  }
  offsets.push_back(arena.size());
}
}  // namespace

Result<MergeTable> MergeTable::from_priorities(std::vector<std::optional<std::string>> token_bytes,
                                               std::vector<std::uint32_t> priority,
                                               Options options) {
  if (priority.size() != token_bytes.size()) {
    return make_error("merge table: {} priorities for {} tokens", priority.size(),
                      token_bytes.size());
  }
  MergeTable t;
  t.options_ = std::move(options);
  fill_tokens(token_bytes, t.arena_.own(), t.offsets_.own(), t.present_.own());
  t.sync_tokens();
  for (std::size_t i = 0; i < priority.size(); ++i) {
    if (!t.present_[i]) priority[i] = kNoRank;
  }
  t.priority_.own() = std::move(priority);
  t.priority_.sync();
  TOK_TRY(t.build_index("merge table"));
  t.build_filter();
  t.finish_byte_tokens();
  t.build_cuts();
  t.build_chars();
  t.build_byte_pairs();
  return t;
}

void MergeTable::build_filter() {
  std::uint64_t words = std::bit_ceil(std::max<std::size_t>(8, count_present(present_) * 10 / 64));
  std::vector<std::uint64_t>& f = filter_.own();
  f.assign(words, 0);
  filter_mask_ = words - 1;
  for (TokenId id = 0; id < size(); ++id) {
    if (!present_[id]) continue;
    std::uint64_t h = hash_bytes(bytes(id));
    f[filter_word(h)] |= filter_bits(h);
  }
  filter_.sync();
}

void MergeTable::build_byte_pairs() {
  byte_pairs_.clear();
  if (!ranked() || options_.initial != InitialSymbols::kBytes) return;
  byte_pairs_.assign(std::size_t{1} << 16, kNoToken);
  for (TokenId id = 0; id < size(); ++id) {
    if (!present_[id] || offsets_[id + 1] - offsets_[id] != 2) continue;
    std::string_view t = bytes(id);
    // find's answer, not id: with two tokens of the same bytes, the pair
    // lookup it stands in for returns the one the index holds.
    byte_pairs_[static_cast<unsigned char>(t[0]) | (static_cast<unsigned char>(t[1]) << 8)] =
        find(t);
  }
}

void MergeTable::build_cuts() {
  std::vector<std::uint64_t> keys;
  for (TokenId id = 0; id < size(); ++id) {
    if (!present_[id]) continue;
    std::string_view t = bytes(id);
    const auto* b = reinterpret_cast<const unsigned char*>(t.data());
    for (std::size_t j = 1; j < t.size(); ++j) {
      if (!cuts::candidate(b, j)) continue;
      keys.push_back(
          cuts::key(b + j, std::min<std::size_t>(j, 2), std::min<std::size_t>(t.size() - j, 2)));
    }
  }
  // About 32 bits a key: a safe point is left uncut by mistake a few % of the time.
  std::uint64_t nbits = std::bit_ceil(std::max<std::uint64_t>(4096, 32 * keys.size()));
  std::vector<std::uint64_t>& words = cut_bits_.own();
  words.assign(nbits / 64, 0);
  unsigned shift = 64 - static_cast<unsigned>(std::countr_zero(nbits));
  for (std::uint64_t k : keys) {
    std::uint64_t b = cuts::bit(k, shift);
    words[b >> 6] |= std::uint64_t{1} << (b & 63);
  }
  cut_bits_.sync();
  finish_cuts();
}

void MergeTable::finish_cuts() {
  cut_shift_ =
      cut_bits_.empty()
          ? 64
          : 64 - static_cast<unsigned>(std::countr_zero(std::uint64_t{cut_bits_.size()} * 64));
  cuts_usable_ = options_.initial == InitialSymbols::kBytes;
  for (unsigned c = 0; c < 256 && cuts_usable_; ++c) {
    TokenId id = byte_tokens_[c];
    cuts_usable_ = id != kNoToken && has(id) && bytes(id).size() == 1 &&
                   static_cast<unsigned char>(bytes(id)[0]) == c;
  }
}

Result<MergeTable> MergeTable::from_merges(std::vector<std::optional<std::string>> token_bytes,
                                           const std::vector<Merge>& merges, Options options) {
  MergeTable t;
  t.options_ = std::move(options);
  fill_tokens(token_bytes, t.arena_.own(), t.offsets_.own(), t.present_.own());
  t.sync_tokens();
  TOK_TRY(t.build_index("merge table"));
  TOK_TRY(t.build_pairs(merges));
  t.finish_byte_tokens();
  t.build_cuts();
  return t;
}

Status MergeTable::build_pairs(const std::vector<Merge>& merges) {
  std::uint64_t cap = table_size_for(merges.size());
  std::vector<PairSlot>& pairs = pairs_.own();
  pairs.assign(cap, PairSlot{});
  pairs_mask_ = cap - 1;
  std::string joined;
  for (std::size_t r = 0; r < merges.size(); ++r) {
    const Merge& m = merges[r];
    if (!has(m.left) || !has(m.right)) {
      return make_error("merge {}: token id {} is not in the vocabulary", r + 1,
                        has(m.left) ? m.right : m.left);
    }
    joined.assign(bytes(m.left));
    joined += bytes(m.right);
    TokenId result = find(joined);
    if (result == kNoToken) {
      return make_error("merge {}: the result of merging ids {} and {} is not in the vocabulary",
                        r + 1, m.left, m.right);
    }
    std::uint64_t key = pair_key(m.left, m.right);
    std::uint64_t i = hash_u64(key) & pairs_mask_;
    for (;; i = (i + 1) & pairs_mask_) {
      if (pairs[i].key == UINT64_MAX) {
        pairs[i] = {key, {static_cast<std::uint32_t>(r), result}};
        break;
      }
      if (pairs[i].key == key) break;  // a repeated merge keeps its first priority
    }
  }
  pairs_.sync();
  return {};
}

PairInfo MergeTable::pair_from_list(TokenId left, TokenId right) const {
  if (pairs_.empty()) return {};
  std::uint64_t key = pair_key(left, right);
  for (std::uint64_t i = hash_u64(key) & pairs_mask_;; i = (i + 1) & pairs_mask_) {
    const PairSlot& s = pairs_[i];
    if (s.key == key) return s.info;
    if (s.key == UINT64_MAX) return {};
  }
}

std::vector<MergeTable::Merge> MergeTable::merges() const {
  std::vector<Merge> out;
  if (!priority_.empty()) {
    std::vector<std::pair<std::uint32_t, TokenId>> order;
    for (TokenId id = 0; id < size(); ++id) {
      if (present_[id] && bytes(id).size() >= 2 && priority_[id] != kNoRank) {
        order.emplace_back(priority_[id], id);
      }
    }
    std::sort(order.begin(), order.end());
    for (auto [prio, id] : order) {
      std::string_view b = bytes(id);
      for (std::size_t k = 1; k < b.size(); ++k) {
        TokenId l = find(b.substr(0, k)), r = find(b.substr(k));
        if (l != kNoToken && r != kNoToken) {
          out.push_back({l, r});
          break;
        }
      }
    }
    return out;
  }
  std::vector<std::pair<std::uint32_t, Merge>> order;
  for (const PairSlot& s : pairs_) {
    if (s.key != UINT64_MAX) {
      order.push_back({s.info.rank, {pair_left(s.key), pair_right(s.key)}});
    }
  }
  std::sort(order.begin(), order.end(), [](auto& a, auto& b) { return a.first < b.first; });
  for (auto& [r, m] : order) out.push_back(m);
  return out;
}

}  // namespace tok::bpe
