// The tokenizer stored in a GGUF file's metadata (tokenizer.ggml.*), loaded
// into tok's MergeTable + Tokenizer exactly as llama.cpp tokenizes:
//   - model "gpt2": byte-level BPE; merges; the split regexes llama.cpp uses
//     for tokenizer.ggml.pre (src/llama-vocab.cpp);
//   - model "llama": SentencePiece BPE; token scores as merge priorities,
//     "<0xXX>" byte fallback, a space prefix and spaces as "▁".
// Control and unknown tokens are special tokens; user-defined tokens are
// matched in every mode, as llama.cpp does.
#pragma once

#include <string>
#include <vector>

#include "bpe/tokenizer.hpp"
#include "core/result.hpp"
#include "formats/gguf_reader.hpp"

namespace tok::formats {

Result<bpe::Tokenizer> load_gguf_tokenizer(const GgufFile& file, const std::string& name);

// The split regexes llama.cpp applies (in sequence) for a tokenizer.ggml.pre
// name; an unknown name is an error listing the known ones.
Result<std::vector<std::string>> llama_cpp_pre_regexes(std::string_view pre, bool* ignore_merges);

}  // namespace tok::formats
