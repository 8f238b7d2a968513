// Hugging Face tokenizer.json (BPE model) and GPT-2 style vocab.json +
// merges.txt, loaded into tok's MergeTable + Tokenizer.
//
// Byte-level vocabularies (GPT-2, Llama 3, Qwen, DeepSeek V3, GPT-OSS) keep
// raw bytes and start from one symbol per byte; SentencePiece-style BPE
// (Mistral, Gemma, Llama 2) starts from characters with "<0xXX>" byte
// fallback. Added tokens are matched in the raw text before normalization,
// as HF does ("special": false ones in every mode).
#pragma once

#include <string>
#include <string_view>

#include "bpe/tokenizer.hpp"
#include "core/result.hpp"

namespace tok::formats {

// `text` is the tokenizer.json content, `path` its location (messages; a
// tokenizer_config.json beside it supplies add_bos_token / add_eos_token).
Result<bpe::Tokenizer> load_hf_tokenizer_json(std::string_view text, const std::string& path,
                                              const std::string& name);
// vocab.json + merges.txt (GPT-2 byte-level, the gpt2 split pattern).
Result<bpe::Tokenizer> load_vocab_merges(const std::string& vocab_path,
                                         const std::string& merges_path, const std::string& name);

}  // namespace tok::formats
