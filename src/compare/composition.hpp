// What a vocabulary is made of: the share of its tokens in each Unicode
// script, how many tokens are not whole UTF-8 (pieces of a multi-byte
// character, the byte-level BPE's way of spelling rare characters), the mean
// token length, and how much two vocabularies share (Jaccard index of their
// token byte strings). Special tokens are left out throughout.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "bpe/tokenizer.hpp"

namespace tok::compare {

struct ScriptShare {
  std::string script;  // ICU long name ("Latin", "Han"), or "Common" (only
                       // spaces, digits, punctuation), "Mixed" (2+ scripts)
  std::size_t tokens = 0;
};

struct Composition {
  std::size_t tokens = 0;            // ordinary tokens (no specials)
  std::size_t partial = 0;           // not valid UTF-8: partial sequences, stray bytes
  double mean_bytes = 0;             // mean token length in bytes
  double mean_chars = 0;             // mean length in code points, whole-UTF-8 tokens only
  std::vector<ScriptShare> scripts;  // most tokens first; "partial UTF-8" excluded
};

// The script of one token's bytes; "" when they are not valid UTF-8.
std::string token_script(std::string_view bytes);

Composition compose(const bpe::Tokenizer& tk);

// |A n B| / |A u B| over the token byte strings of two vocabularies.
double jaccard(const bpe::Tokenizer& a, const bpe::Tokenizer& b);

}  // namespace tok::compare
