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

// The closest known names to `name` (edit distance), for suggestions.
std::vector<std::string> suggest(std::string_view name, const std::vector<std::string>& known);

}  // namespace tok::formats
