// The .tiktoken vocabulary format: one token per line, "BASE64 RANK", ranks
// 0..n-1 each exactly once. Also its JSON sidecar (FILE.tiktoken.json) with
// the split pattern and special tokens, which `tok train` writes.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bpe/merge_table.hpp"
#include "bpe/tokenizer.hpp"
#include "core/result.hpp"

namespace tok::formats {

// Parses .tiktoken text into token bytes indexed by rank. `source` names the
// file in error messages ("FILE:LINE: ..."). Ranks must run 0..n-1 without
// gaps, except ranks listed in `reserved` (special-token ids: p50k_base has
// no line for 50256, its <|endoftext|>), which are left as empty strings.
Result<std::vector<std::string>> parse_tiktoken(std::string_view text, const std::string& source,
                                                std::span<const bpe::TokenId> reserved = {});

// Serializes token bytes (index = rank) as .tiktoken text.
std::string write_tiktoken(const std::vector<std::string>& tokens);

struct TiktokenSidecar {
  std::string pattern;  // a named pattern ("o200k") or a regex
  std::vector<bpe::SpecialToken> specials;
};
Result<TiktokenSidecar> parse_sidecar(std::string_view json, const std::string& source);
std::string write_sidecar(const TiktokenSidecar& sidecar);

std::string base64_encode(std::string_view bytes);

}  // namespace tok::formats
