// WordCounts: the table of unique pre-tokenized pieces ("words") of a corpus
// and how often each occurs; what BPE training starts from. Memory grows with
// the number of distinct words, never with corpus size.
//
// An open-addressing hash table over an arena of word bytes. Each counting
// thread fills its own table; merge_from() sums them, so the result is the
// same multiset whatever the thread count.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tok::bpe {

class WordCounts {
 public:
  WordCounts();

  // Adds `count` occurrences of `word`.
  void add(std::string_view word, std::uint64_t count = 1);
  // Adds every word of `other` with its count.
  void merge_from(const WordCounts& other);

  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  // Total occurrences (sum of counts).
  std::uint64_t total() const { return total_; }

  std::string_view word(std::size_t i) const {
    const Entry& e = entries_[i];
    return {arena_.data() + e.offset, e.len};
  }
  std::uint64_t count(std::size_t i) const { return entries_[i].count; }
  // Count of `word`, 0 if absent.
  std::uint64_t find(std::string_view word) const;

  // Entry indexes ordered by word bytes (unsigned lexicographic): the
  // canonical order for saved tables and deterministic training input.
  std::vector<std::uint32_t> sorted_order() const;

 private:
  struct Entry {
    std::uint64_t hash;
    std::uint64_t offset;  // into arena_
    std::uint64_t count;
    std::uint32_t len;
  };
  void add_hashed(std::string_view word, std::uint64_t hash, std::uint64_t count);
  void grow();

  std::string arena_;                 // all word bytes, concatenated
  std::vector<Entry> entries_;        // (size) in insertion order
  std::vector<std::uint32_t> slots_;  // open addressing: entry index + 1, 0 = empty
  std::uint64_t mask_ = 0;
  std::uint64_t total_ = 0;
};

}  // namespace tok::bpe
