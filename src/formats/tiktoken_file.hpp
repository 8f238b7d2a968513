// The .tiktoken vocabulary format: one token per line, "BASE64 RANK", ranks
// 0..n-1 each exactly once. Also its JSON sidecar (FILE.tiktoken.json) with
// the split pattern and special tokens, which `tok train` writes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bpe/merge_table.hpp"
#include "bpe/tokenizer.hpp"
#include "core/result.hpp"

namespace tok::formats {

struct TiktokenRanks {
  std::vector<std::optional<std::string>> tokens;  // index = rank; nullopt = gap
  struct Gap {
    std::uint32_t rank;
    std::size_t line;  // the line where the ranks jumped over it
  };
  // Missing ranks. Real files have them where a special token's id sits
  // (p50k_base lacks 50256, <|endoftext|>); any other gap is an error.
  std::vector<Gap> gaps;
};

// A vocabulary of N ranks leaves only a few ids free (reserved for special
// tokens), so a rank past N + kMaxRankGap cannot be valid. Checked before
// anything is allocated for the rank: a 1 MB file, or a dict of 257 ranks
// one of which is 100,000,000, must not allocate gigabytes. `owner` and
// `unit` name the N entries in the message ("the file", "lines").
inline constexpr std::size_t kMaxRankGap = 4096;
Status check_rank_bound(std::uint64_t rank, std::size_t entries, std::string_view owner,
                        std::string_view unit);

// Parses .tiktoken text into token bytes indexed by rank. `source` names the
// file in error messages ("FILE:LINE: ...").
Result<TiktokenRanks> parse_tiktoken(std::string_view text, const std::string& source);

// Serializes token bytes (index = rank) as .tiktoken text.
std::string write_tiktoken(const std::vector<std::string>& tokens);

// "pattern" holds the split regex itself, so that any tiktoken loader given
// the sidecar splits as tok does; "pattern_name" (optional) names it when it
// is one of tok's named patterns. Sidecars written before the regex was
// stored hold a name in "pattern"; both forms load.
struct TiktokenSidecar {
  std::string pattern;       // a regex (or, in old sidecars, a named pattern)
  std::string pattern_name;  // e.g. "o200k"; empty when the pattern has no name
  std::vector<bpe::SpecialToken> specials;
};
Result<TiktokenSidecar> parse_sidecar(std::string_view json, const std::string& source);
std::string write_sidecar(const TiktokenSidecar& sidecar);

std::string base64_encode(std::string_view bytes);
// Decodes padded standard base64; false on malformed input.
bool base64_decode(std::string_view in, std::string& out);

}  // namespace tok::formats
