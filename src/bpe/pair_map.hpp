// PairMap: open-addressing hash map from a symbol pair (left << 32 | right)
// to a dense index, for the trainer's pair statistics. Pairs are never
// removed (a merged pair keeps its slot with count 0), so lookups never meet
// tombstones.
#pragma once

#include <cstdint>
#include <vector>

#include "bpe/hash.hpp"

namespace tok::bpe {

inline std::uint64_t pair_key(std::uint32_t left, std::uint32_t right) {
  return (static_cast<std::uint64_t>(left) << 32) | right;
}
inline std::uint32_t pair_left(std::uint64_t key) { return static_cast<std::uint32_t>(key >> 32); }
inline std::uint32_t pair_right(std::uint64_t key) { return static_cast<std::uint32_t>(key); }

class PairMap {
 public:
  static constexpr std::uint64_t kEmpty = UINT64_MAX;

  PairMap() : keys_(1 << 16, kEmpty), values_(1 << 16), mask_((1 << 16) - 1) {}

  // Index of key; inserts it with index `next` (and sets *inserted) if absent.
  std::uint32_t find_or_insert(std::uint64_t key, std::uint32_t next, bool* inserted) {
    for (std::uint64_t i = hash_u64(key) & mask_;; i = (i + 1) & mask_) {
      if (keys_[i] == key) {
        *inserted = false;
        return values_[i];
      }
      if (keys_[i] == kEmpty) {
        keys_[i] = key;
        values_[i] = next;
        *inserted = true;
        if (++size_ * 2 > keys_.size()) grow();
        return next;
      }
    }
  }
  // Index of key, or UINT32_MAX.
  std::uint32_t find(std::uint64_t key) const {
    for (std::uint64_t i = hash_u64(key) & mask_;; i = (i + 1) & mask_) {
      if (keys_[i] == key) return values_[i];
      if (keys_[i] == kEmpty) return UINT32_MAX;
    }
  }

 private:
  void grow() {
    std::vector<std::uint64_t> old_keys = std::move(keys_);
    std::vector<std::uint32_t> old_values = std::move(values_);
    keys_.assign(old_keys.size() * 2, kEmpty);
    values_.assign(old_keys.size() * 2, 0);
    mask_ = keys_.size() - 1;
    for (std::size_t k = 0; k < old_keys.size(); ++k) {
      if (old_keys[k] == kEmpty) continue;
      std::uint64_t i = hash_u64(old_keys[k]) & mask_;
      while (keys_[i] != kEmpty) i = (i + 1) & mask_;
      keys_[i] = old_keys[k];
      values_[i] = old_values[k];
    }
  }

  std::vector<std::uint64_t> keys_;    // (capacity) pair key or kEmpty
  std::vector<std::uint32_t> values_;  // (capacity) dense pair index
  std::uint64_t mask_;
  std::size_t size_ = 0;
};

}  // namespace tok::bpe
