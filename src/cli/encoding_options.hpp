// Options shared by every command that tokenizes: -e ENC, --pattern,
// --special MODE / --allow-special; and loading the chosen tokenizer.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "bpe/tokenizer.hpp"
#include "core/result.hpp"

namespace tok::cli {

struct EncodingOptions {
  std::string encoding = "o200k_base";
  std::optional<std::string> pattern;
  std::string special = "error";
  bool allow_special = false;
  bool add_edge_tokens = false;  // --add-special: BOS/EOS as the vocabulary's metadata asks

  // Adds -e/--encoding and --pattern.
  void add_encoding(CLI::App* app);
  // Adds -e/--encoding as a repeatable option filling `encodings` (left
  // empty when not given: `encoding` is then the default), and --pattern.
  void add_encoding_list(CLI::App* app, std::vector<std::string>& encodings);
  // Adds --special and --allow-special; default_mode is "error" or "text".
  void add_special(CLI::App* app, const std::string& default_mode);
  bpe::SpecialMode special_mode() const;
  // Adds --add-special (encode only: count and encode never add BOS/EOS otherwise).
  void add_edges(CLI::App* app);
  Result<bpe::Tokenizer> load() const;
};

}  // namespace tok::cli
