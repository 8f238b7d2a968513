// SentencePiece's space handling, the one transform both loaders use: a GGUF
// "llama" vocabulary (llama.cpp's add_space_prefix) and a tokenizer.json
// (Hugging Face's Metaspace pre-tokenizer and decoder, and the
// Prepend("▁") + Replace(" ", "▁") normalizers of llama and Mistral files).
//
// Encoding, applied to each run of text between special tokens: every space
// becomes the replacement ("▁"), and a replacement is put in front (the
// "dummy prefix") as the scheme says:
//   kAlways  every run: SentencePiece's add_dummy_prefix, llama.cpp's
//            add_space_prefix (a run after a special token gets one too);
//   kFirst   only the run at the start of the input (HF "first", the
//            legacy=false Llama and Mistral tokenizers);
//   kNever   no prefix (Gemma).
// `unless_present`: no prefix where the run already starts with one (a
// leading space), as HF's Metaspace does; SentencePiece with
// remove_extra_whitespaces=false, llama.cpp and HF's Prepend normalizer add it
// regardless, so " a" is "▁▁a" there and "▁a" under Metaspace.
// remove_extra_whitespaces=true (trimming and squeezing spaces) is expressed
// neither in GGUF files nor by these HF components, so it is not here.
//
// Decoding maps the replacement back to spaces and drops the first space of
// the text where the encoder added a prefix.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace tok::formats {

struct SentencePieceSpaces {
  enum class Prepend { kNever, kFirst, kAlways };

  std::string replacement = "\u2581";
  Prepend prepend = Prepend::kAlways;
  bool unless_present = false;

  // The run of text starting at byte `offset` of the input, rewritten; fills
  // *to_input with its alignment with the run when given (text/alignment.hpp).
  std::string encode(std::string_view run, std::size_t offset,
                     std::vector<std::size_t>* to_input) const;
  // Decoded bytes with the replacement back to spaces; `strip_first` drops a
  // leading space (the prefix the encoder added).
  std::string decode(std::string_view text, bool strip_first) const;
};

// A Prepend scheme by its Hugging Face name ("always", "first", "never");
// false for any other.
bool parse_prepend_scheme(std::string_view name, SentencePieceSpaces::Prepend& out);

}  // namespace tok::formats
