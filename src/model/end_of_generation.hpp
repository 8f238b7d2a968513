// End of generation: the tokens after which a model has finished its turn,
// llama.cpp's "EOG" set: EOS, the file's EOT/EOM ids
// (tokenizer.ggml.eot_token_id / eom_token_id), and the special tokens whose
// text marks the end of a turn in the common chat formats (<|eot_id|>,
// <|im_end|>, <end_of_turn>, <|end|>, ...), as llama-vocab.cpp collects them.
#pragma once

#include <vector>

#include "bpe/tokenizer.hpp"

namespace tok::formats {
class GgufFile;
}

namespace tok::model {

// Sorted, without duplicates; empty when the vocabulary has none.
std::vector<bpe::TokenId> end_of_generation_ids(const bpe::Tokenizer& tk,
                                                const formats::GgufFile* file);

}  // namespace tok::model
