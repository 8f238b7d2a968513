// build_merge_table: the one place where a vocabulary read from a file (token
// strings as the file writes them, merges as string pairs or scores) becomes
// a bpe::MergeTable. Hugging Face tokenizer.json, vocab.json + merges.txt and
// GGUF all come through here.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bpe/merge_table.hpp"
#include "core/result.hpp"

namespace tok::formats {

struct VocabSpec {
  // id -> token string as stored in the file; nullopt for ids that are not
  // ordinary tokens (special/added tokens, holes).
  std::vector<std::optional<std::string>> tokens;
  // Merge-list form: pairs of token strings, highest priority first.
  std::vector<std::pair<std::string, std::string>> merges;
  // Ranked form (SentencePiece scores, higher merges first), used when
  // `use_scores` is set.
  std::vector<float> scores;
  bool use_scores = false;
  // Token strings use GPT-2's byte mapping; symbols start as bytes.
  bool byte_level = true;
  // A piece that is a token is that token (HF ignore_merges, llama3).
  bool ignore_merges = false;
  // SentencePiece "<0xXX>" tokens stand for raw bytes.
  bool byte_fallback = false;
  bpe::TokenId unk = bpe::kNoToken;
};

Result<bpe::MergeTable> build_merge_table(VocabSpec spec, const std::string& source);

// "<0x41>" -> 0x41; -1 if the string is not a byte-fallback token.
int byte_fallback_value(std::string_view token);

}  // namespace tok::formats
