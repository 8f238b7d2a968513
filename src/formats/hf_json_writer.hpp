// Writes a byte-level BPE vocabulary in the ranked (tiktoken) form as a
// Hugging Face tokenizer.json that encodes to the same ids:
//   - model BPE with vocab (GPT-2 byte-to-unicode token strings) and merges;
//     ignore_merges = true, so a piece that is a token maps to it whole, as
//     tiktoken does;
//   - the merge list is derived from the ranks the way tiktoken would build
//     each token: BPE over the token's own bytes using only lower ranks; a
//     token that this does not split into exactly two tokens gets no merge
//     (tiktoken can reach it only as a whole piece);
//   - pre_tokenizer Sequence[Split(pattern, Isolated), ByteLevel(no regex)],
//     decoder ByteLevel, special tokens as added_tokens.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "bpe/merge_table.hpp"
#include "bpe/tokenizer.hpp"

namespace tok::formats {

// table must be in the ranked form (MergeTable::from_ranks).
std::string write_hf_tokenizer_json(const bpe::MergeTable& table, std::string_view pattern_regex,
                                    const std::vector<bpe::SpecialToken>& specials);

}  // namespace tok::formats
