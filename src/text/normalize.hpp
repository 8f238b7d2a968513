// Text rewriting steps of vocabularies that normalize (Hugging Face
// normalizers, SentencePiece's spaces), each giving the rewritten text and,
// when `to_input` is non-null, its alignment with the step's input
// (text/alignment.hpp). The text is the same whether or not the alignment is
// asked for.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace tok::text {

// Unicode normalization by name: "NFC", "NFD", "NFKC", "NFKD" (utf8proc), as
// Hugging Face tokenizers applies it: code points newer than its tables
// (Unicode 9.0, text/normalization_chars.hpp) and invalid UTF-8 bytes are
// kept as they are, and the text between them is normalized.
std::string unicode_normalize(std::string_view text, std::string_view form,
                              std::vector<std::size_t>* to_input = nullptr);
// Is c a code point that HF's normalization tables know (assigned in 9.0)?
bool in_normalization_tables(char32_t c);
// Unicode lowercase of every code point, as Hugging Face's Lowercase does
// (Rust's full mapping: U+0130 gives "i" + U+0307); invalid bytes kept.
std::string unicode_lowercase(std::string_view text, std::vector<std::size_t>* to_input = nullptr);
// Every occurrence of `from` (non-empty) replaced by `to`, left to right.
std::string replace_all(std::string_view text, std::string_view from, std::string_view to,
                        std::vector<std::size_t>* to_input = nullptr);
// `prefix` + text.
std::string prepend(std::string_view text, std::string_view prefix,
                    std::vector<std::size_t>* to_input = nullptr);
// Text without its leading and/or trailing ASCII whitespace.
std::string strip(std::string_view text, bool left, bool right,
                  std::vector<std::size_t>* to_input = nullptr);

}  // namespace tok::text
