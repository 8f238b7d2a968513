// count_words: pre-tokenizes texts in parallel into a WordCounts table.
//
// Each text is cut into chunks of about kCountChunkBytes at positions where
// the pattern is guaranteed to have a piece boundary, so counting chunk by
// chunk gives exactly the pieces of one pass over the whole text. Cut points
// depend only on the text, never on the thread count, and per-thread tables
// are summed, so the result is identical for any number of threads.
#pragma once

#include <atomic>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "bpe/word_counts.hpp"
#include "text/pretokenizer.hpp"

namespace tok::bpe {

inline constexpr std::size_t kCountChunkBytes = std::size_t{1} << 20;

// Cut points 0 = c0 < c1 < ... < cn = text.size() about `chunk` bytes apart.
// A cut is the pre-tokenizer's safe_boundary; where it finds none, a newline
// between a non-space ASCII byte and an ASCII letter (a piece boundary for
// the gpt2, cl100k and o200k patterns: none of their pieces spans "X\nA",
// and none looks behind). For other regexes without a safe boundary the text
// stays one chunk, so counts are always those of a single pass.
std::vector<std::size_t> count_chunk_cuts(const text::PreTokenizer& pre, std::string_view text,
                                          std::size_t chunk = kCountChunkBytes);

struct CountProgress {
  std::atomic<std::uint64_t> bytes_done{0};
};

// Counts the pieces of every text (texts are independent: a piece never
// spans two of them). threads >= 1.
WordCounts count_words(const text::PreTokenizer& pre, std::span<const std::string_view> texts,
                       unsigned threads, CountProgress* progress = nullptr);

}  // namespace tok::bpe
