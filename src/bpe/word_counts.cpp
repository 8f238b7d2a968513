#include "bpe/word_counts.hpp"

#include <algorithm>

#include "bpe/hash.hpp"

namespace tok::bpe {

WordCounts::WordCounts() : slots_(1024, 0), mask_(1023) {}

void WordCounts::add(std::string_view word, std::uint64_t count) {
  add_hashed(word, hash_bytes(word), count);
}

void WordCounts::add_hashed(std::string_view word, std::uint64_t hash, std::uint64_t count) {
  total_ += count;
  for (std::uint64_t i = hash & mask_;; i = (i + 1) & mask_) {
    std::uint32_t s = slots_[i];
    if (s == 0) {
      entries_.push_back({hash, arena_.size(), count, static_cast<std::uint32_t>(word.size())});
      arena_.append(word);
      slots_[i] = static_cast<std::uint32_t>(entries_.size());
      // Keep the load factor under 1/2: probes stay short.
      if (entries_.size() * 2 > slots_.size()) grow();
      return;
    }
    Entry& e = entries_[s - 1];
    if (e.hash == hash && e.len == word.size() &&
        std::string_view(arena_.data() + e.offset, e.len) == word) {
      e.count += count;
      return;
    }
  }
}

void WordCounts::grow() {
  std::size_t n = slots_.size() * 2;
  slots_.assign(n, 0);
  mask_ = n - 1;
  for (std::size_t k = 0; k < entries_.size(); ++k) {
    std::uint64_t i = entries_[k].hash & mask_;
    while (slots_[i] != 0) i = (i + 1) & mask_;
    slots_[i] = static_cast<std::uint32_t>(k + 1);
  }
}

void WordCounts::merge_from(const WordCounts& other) {
  for (const Entry& e : other.entries_) {
    add_hashed({other.arena_.data() + e.offset, e.len}, e.hash, e.count);
  }
}

std::uint64_t WordCounts::find(std::string_view word) const {
  std::uint64_t hash = hash_bytes(word);
  for (std::uint64_t i = hash & mask_;; i = (i + 1) & mask_) {
    std::uint32_t s = slots_[i];
    if (s == 0) return 0;
    const Entry& e = entries_[s - 1];
    if (e.hash == hash && e.len == word.size() &&
        std::string_view(arena_.data() + e.offset, e.len) == word) {
      return e.count;
    }
  }
}

std::vector<std::uint32_t> WordCounts::sorted_order() const {
  std::vector<std::uint32_t> order(entries_.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [this](std::uint32_t a, std::uint32_t b) { return word(a) < word(b); });
  return order;
}

}  // namespace tok::bpe
