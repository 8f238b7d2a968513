// The word-count table file that `tok train --save-counts` writes and
// `--from-counts` reads: the mergeable output of the counting step, so that
// counting can run on many machines and only the summed table is trained.
//
//   #tok-word-counts v1<TAB>"PATTERN"      (pattern as a JSON string)
//   COUNT<TAB>BASE64(WORD)                 (one line per distinct word)
//
// Lines are sorted by word bytes, so equal tables give identical files. A
// reader accepts any order and sums repeated words, so shards can simply be
// concatenated (after dropping their header lines) or given together.
#pragma once

#include <string>
#include <string_view>

#include "bpe/word_counts.hpp"
#include "core/result.hpp"

namespace tok::formats {

inline constexpr std::string_view kWordCountsMagic = "#tok-word-counts v1\t";

// The whole file's text.
std::string write_word_counts(const bpe::WordCounts& counts, std::string_view pattern);

// Adds the words of one file to `into`; returns the file's pattern. `source`
// names the file in errors ("FILE:LINE: ...").
Result<std::string> read_word_counts(std::string_view text, const std::string& source,
                                     bpe::WordCounts& into);

}  // namespace tok::formats
