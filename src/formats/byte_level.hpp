// GPT-2's byte-to-unicode mapping: byte-level BPE vocabularies (Hugging Face
// ByteLevel, GGUF "gpt2") store each token's bytes as printable characters,
// one character per byte (space is "Ġ", newline "Ċ"). tok keeps raw bytes.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tok::formats {

// The raw bytes of a token written in the mapping; nullopt if a character is
// not one of the 256 mapped characters.
std::optional<std::string> byte_level_decode(std::string_view token);
// Raw bytes to the mapped form.
std::string byte_level_encode(std::string_view bytes);

}  // namespace tok::formats
