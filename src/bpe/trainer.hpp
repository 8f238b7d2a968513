// train_bpe: learns a byte-level BPE vocabulary from a table of word counts.
//
// Classic BPE (Sennrich et al. 2016, https://arxiv.org/abs/1508.07909) over
// the unique words: every word starts as its bytes (ids 0..255 = the byte
// values); each step merges the most frequent adjacent pair of symbols into a
// new token, everywhere, left to right, until the vocabulary has the asked
// size or no pair is left.
//
// Tie-break (one rule everywhere): among pairs with the same count, the pair
// with the smallest (left id, right id) merges first. Ids are assigned in the
// order tokens are learned, so the result depends only on the word multiset:
// identical output for any thread count and any input order.
//
// A merge whose bytes equal an existing token (e.g. "ab"+"c" then "a"+"bc")
// reuses that token's id and adds no token: in the tiktoken form each byte
// string has exactly one rank.
//
// Incremental, as in Hugging Face's and SentencePiece's trainers: pair counts
// and a pair -> words index are updated only for the words that contain the
// merged pair; a max-heap of (count, pair) is invalidated lazily (an entry
// whose count is stale is re-pushed with the current count when popped). The
// corpus is never recounted.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bpe/merge_table.hpp"
#include "bpe/word_counts.hpp"
#include "core/result.hpp"

namespace tok::bpe {

struct TrainOptions {
  // Ordinary tokens wanted: 256 byte tokens + learned ones (>= 256).
  std::size_t vocab_size = 0;
  // A pair seen fewer times than this is never merged (0 or 1: any pair).
  std::uint64_t min_frequency = 0;
  // Never create a token longer than this many bytes (0: no limit).
  std::size_t max_token_bytes = 0;
};

struct TrainProgress {
  std::atomic<std::uint64_t> merges_done{0};
};

struct TrainResult {
  // Token bytes in rank (= id) order: ids 0..255 are the single bytes, then
  // tokens in the order they were learned.
  std::vector<std::string> tokens;
  // Every merge applied, in order; a merge's result is the token whose bytes
  // are bytes(left) + bytes(right). May be longer than tokens.size() - 256
  // when a merge reused an existing token.
  std::vector<MergeTable::Merge> merges;
};

Result<TrainResult> train_bpe(const WordCounts& words, const TrainOptions& options,
                              TrainProgress* progress = nullptr);

// The special tokens a trained vocabulary appends after its learned ones
// (`tok train --special`, Python's tok.train(specials=...)): an empty one or
// one given twice is refused, since either would give bytes two ids or none.
// `arg` names the list in the message ("--special", "specials").
Status check_new_specials(const std::vector<std::string>& specials, std::string_view arg);

}  // namespace tok::bpe
