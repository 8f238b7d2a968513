// What `tok train` and Python's tok.train share around the merge learner:
// the pre-tokenizer a pattern names, the learner's options for a vocabulary
// size, and the learned tokens turned into a Tokenizer and the files that
// hold it (OUT.tiktoken, its sidecar OUT.tiktoken.json, and
// OUT.tokenizer.json when asked for). Both entry points call these, so a
// vocabulary trained from Python is the one the CLI writes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bpe/tokenizer.hpp"
#include "bpe/trainer.hpp"
#include "bpe/word_counts.hpp"
#include "core/result.hpp"
#include "text/pretokenizer.hpp"

namespace tok::formats {

// gpt2, cl100k, o200k (tok's named patterns) or a regex; `arg` names the
// option in the error ("--pattern", "pattern").
Result<text::PreTokenizer> training_pretokenizer(const std::string& pattern, std::string_view arg);

// `vocab_size` counts every id: 256 byte tokens, the learned ones and the
// special tokens. Too small for the byte tokens and the specials is an
// error naming `arg` ("--vocab-size", "vocab_size").
Status check_vocab_size(std::size_t vocab_size, std::size_t specials, std::string_view arg);
bpe::TrainOptions train_options(std::size_t vocab_size, std::size_t specials,
                                std::uint64_t min_frequency, std::size_t max_token_bytes);

struct TrainedVocabulary {
  bpe::Tokenizer tokenizer;  // named "trained"
  std::string tiktoken;      // OUT.tiktoken
  std::string sidecar;       // OUT.tiktoken.json: the split regex (and its name) and specials
  std::string hf_json;       // OUT.tokenizer.json; empty unless asked for
  std::size_t learned = 0;   // ordinary tokens, the 256 byte tokens included
};

// The learned tokens as a tokenizer and its files: special tokens take the
// ids after the learned ones, in order. Every word of `words` (up to the
// first 20,000) must encode and decode back to itself.
Result<TrainedVocabulary> build_trained_vocabulary(bpe::TrainResult result,
                                                   const text::PreTokenizer& pre,
                                                   const std::string& pattern,
                                                   const std::vector<std::string>& specials,
                                                   const bpe::WordCounts& words, bool hf_json);

}  // namespace tok::formats
