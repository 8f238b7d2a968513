// The built-in tiktoken encodings: file, checksum, split pattern and special
// tokens. These definitions are part of each encoding (tiktoken's
// openai_public.py); the checksums identify the shipped files.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "bpe/tokenizer.hpp"

namespace tok::formats {

struct BuiltinEncoding {
  std::string name;                  // "o200k_base"
  std::vector<std::string> aliases;  // "o200k", ...
  std::string file;                  // in vocab_dir()
  std::string sha256;
  std::string pattern;  // PreTokenizer::named() name
  std::vector<bpe::SpecialToken> specials;
};

const std::vector<BuiltinEncoding>& builtin_encodings();
// By name or alias; nullptr if none.
const BuiltinEncoding* find_builtin(std::string_view name);
const BuiltinEncoding* find_builtin_by_sha256(std::string_view sha256);

}  // namespace tok::formats
