// Cutting text at token boundaries: the longest prefix (or suffix) that fits a
// token budget, and splitting a text into budget-sized chunks.
//
// Re-encoding a prefix need not give the prefix of the encoding (a cut can
// change how the last piece splits or merges: "a  b" ends in " ", " b" but
// "a  " ends in "  "). So the cut is searched among the original token
// boundaries, each candidate re-encoded on its own: start at the n-th
// boundary, walk down until the re-encoding fits, then look ahead kLookahead
// boundaries for a longer one that also fits. Only a window of the text
// around the cut is encoded (extended at guaranteed piece boundaries), so
// cutting 1,000 tokens off a 1 GB file reads about 1,000 tokens of it.
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>
#include <vector>

#include "bpe/tokenizer.hpp"
#include "core/result.hpp"

namespace tok::io {

inline constexpr std::size_t kLookahead = 32;

// Length of the longest prefix whose encoding has <= n tokens.
Result<std::size_t> fit_prefix(const bpe::Tokenizer& tk, std::string_view text, std::size_t n,
                               bpe::SpecialMode mode);
// Start of the longest suffix whose encoding has <= n tokens.
Result<std::size_t> fit_suffix(const bpe::Tokenizer& tk, std::string_view text, std::size_t n,
                               bpe::SpecialMode mode);

struct Chunk {
  std::size_t start = 0;  // byte offsets into the text
  std::size_t end = 0;
  std::size_t tokens = 0;
};

// Pieces of <= n tokens each, consecutive pieces sharing about `overlap`
// tokens; a cut prefers a paragraph break in the second half of the piece,
// then a line break in its last quarter. One pass: the text is encoded once,
// a segment at a time, and each piece goes to emit as soon as it is cut
// (time linear in the text, memory in the piece; `tok chunk | head` stops
// early). A cut is among the token boundaries of the whole text, checked by
// re-encoding the piece on its own (see above).
Status chunk_text(const bpe::Tokenizer& tk, std::string_view text, std::size_t n,
                  std::size_t overlap, bpe::SpecialMode mode,
                  const std::function<Status(const Chunk&)>& emit);
// The same, collected.
Result<std::vector<Chunk>> chunk_text(const bpe::Tokenizer& tk, std::string_view text,
                                      std::size_t n, std::size_t overlap, bpe::SpecialMode mode);

// Byte offsets where tokens start when `text` is encoded whole.
Result<std::vector<std::size_t>> token_starts(const bpe::Tokenizer& tk, std::string_view text,
                                              bpe::SpecialMode mode);

}  // namespace tok::io
