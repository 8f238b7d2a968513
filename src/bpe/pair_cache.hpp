// PairCache: a small direct-mapped cache of the merge table's answer for a
// pair of adjacent symbols, keyed by their ids (left << 32 | right).
//
// The merge loop asks MergeTable::pair once per adjacent pair and again after
// every merge. In the ranked form (tiktoken) that hashes the joined bytes and
// probes a multi-megabyte index: a cache miss per question. Pieces that reach
// the merge loop (CJK runs, rare words, identifiers) keep asking about the same
// few thousand pairs, so an L2-sized cache keyed by ids answers most of them.
// The answer is a function of the two ids whenever each id stands for exactly
// its own bytes (MergeTable::pairs_by_id); the encoder checks that.
// Per-thread scratch, never shared.
#pragma once

#include <cstdint>
#include <vector>

#include "bpe/merge_table.hpp"
#include "bpe/pair_map.hpp"
#include "core/huge_pages.hpp"

namespace tok::bpe {

class PairCache {
 public:
  static std::uint64_t key(TokenId left, TokenId right) { return pair_key(left, right); }
  // The cached answer for key, or false.
  bool find(std::uint64_t k, PairInfo* info) const {
    if (slots_.empty()) return false;
    const Slot& s = slots_[index(k)];
    if (s.key != k) return false;
    *info = s.info;
    return true;
  }
  void prefetch(std::uint64_t k) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[index(k)]);
  }
  // Takes its full size now (see HotCache::reserve_full).
  void reserve_full() {
    if (slots_.size() >= kMaxSlots) return;
    bits_ = kMaxBits;
    slots_.assign(kMaxSlots, Slot{});
    inserts_ = 0;
  }
  void insert(std::uint64_t k, PairInfo info) {
    // Start small and grow (dropping the contents: it is only a cache), so a
    // scratch used for one small text costs little to create.
    if (slots_.empty() || (++inserts_ > 2 * slots_.size() && slots_.size() < kMaxSlots)) {
      bits_ = slots_.empty() ? kMinBits : bits_ + 2;
      slots_.assign(std::size_t{1} << bits_, Slot{});
      inserts_ = 0;
    }
    slots_[index(k)] = {k, info};
  }

 private:
  static constexpr unsigned kMinBits = 8;
  static constexpr unsigned kMaxBits = 14;
  static constexpr std::size_t kMaxSlots = std::size_t{1} << kMaxBits;  // 256 KiB
  struct Slot {
    std::uint64_t key = UINT64_MAX;  // never a real key: ids are < UINT32_MAX
    PairInfo info;
  };
  std::size_t index(std::uint64_t k) const {
    return static_cast<std::size_t>((k * 0x9E3779B97F4A7C15ull) >> (64 - bits_));
  }
  std::vector<Slot, HugePageAllocator<Slot>> slots_;  // huge pages at full size (256 KiB)
  unsigned bits_ = kMinBits;
  std::size_t inserts_ = 0;
};

}  // namespace tok::bpe
