// Counting over JSONL documents: the word table `tok train --jsonl` learns
// from, and the token counts of `tok count --jsonl`. Each document is split
// on its own (a piece never spans two documents), so tables of separate
// parts of a dataset sum to the table of the whole (train --save-counts /
// --from-counts across machines).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "bpe/tokenizer.hpp"
#include "bpe/word_counts.hpp"
#include "core/result.hpp"
#include "io/jsonl_documents.hpp"
#include "text/pretokenizer.hpp"

namespace tok::io {

struct JsonlOptions {
  JsonlField field;
  bool skip_bad = false;
  unsigned threads = 1;
};

// The pre-tokenized words of every document of `paths`, in any thread count
// the same table.
Result<bpe::WordCounts> count_jsonl_words(const std::vector<std::string>& paths,
                                          const JsonlOptions& o, const text::PreTokenizer& pre,
                                          JsonlStats& stats);

// The tokens of one JSONL input's documents under each tokenizer.
Result<std::vector<std::uint64_t>> count_jsonl_tokens(const std::string& path,
                                                      const JsonlOptions& o,
                                                      std::span<const bpe::Tokenizer* const> tks,
                                                      bpe::SpecialMode mode, JsonlStats& stats);

}  // namespace tok::io
