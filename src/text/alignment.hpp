// Alignment of a rewritten text with the text it was made from, so that
// token offsets can be given in the user's bytes when a vocabulary's
// normalizer rewrites the text first (SentencePiece's "▁" and prefix space,
// NFC, lowercase), as Hugging Face tokenizers' offsets are.
//
// The alignment is a boundary map: to_input[i] is the input byte boundary
// that the rewritten text's boundary i stands for, for i in 0..text.size()
// (to_input[0] == 0, to_input[text.size()] == input size, non-decreasing).
// A token covering rewritten bytes [a, b) covers input bytes
// [to_input[a], to_input[b]); so tokens that tile the rewritten text tile
// the input, inserted bytes (a prefix space) cover no input byte, and input
// bytes a step drops (Strip) go to the token after them (before them at
// the end of the text).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace tok::text {

// Writes a rewritten text left to right, unit by unit, and its alignment
// when `to_input` is given (without it, only the text: the counting path
// pays nothing for offsets it does not need).
class AlignedWriter {
 public:
  AlignedWriter(std::string& out, std::vector<std::size_t>* to_input);
  // Input bytes [from, from + bytes.size()) kept as they are.
  void copy(std::string_view bytes, std::size_t from);
  // Input bytes [from, to) became `bytes` (to == from: inserted). A token
  // boundary inside the unit maps to its end: the token holding the unit's
  // first byte covers its input bytes.
  void rewrite(std::size_t from, std::size_t to, std::string_view bytes);
  // Ends the text; `input_size` is the input's length.
  void finish(std::size_t input_size);

 private:
  std::string& out_;
  std::vector<std::size_t>* map_;
  std::size_t covered_ = 0;  // input bytes before this are accounted for
};

// The identity alignment of an n-byte text: 0, 1, ..., n.
void identity_alignment(std::size_t n, std::vector<std::size_t>& to_input);

// Alignment of step 2 after step 1: first maps the step-1 text to the input,
// second the step-2 text to the step-1 text. Result in `second`.
void compose_alignment(const std::vector<std::size_t>& first, std::vector<std::size_t>& second);

}  // namespace tok::text
