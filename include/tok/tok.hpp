// tok's public C++ API: load a vocabulary, then encode text to token ids,
// count tokens and decode ids, exactly as `tok encode`, `tok count` and
// `tok decode` do. This header and core/result.hpp (Result, Status, Error),
// installed beside it, are the whole public surface of the tok::tok CMake
// package; every other header of tok is private and is not installed.
//
//   find_package(tok REQUIRED)
//   target_link_libraries(app PRIVATE tok::tok)
//
// An Encoding is immutable once loaded and cheap to copy (copies share the
// vocabulary), so one instance serves any number of threads. No call throws
// for bad input: every failure is an Error whose message names the file or
// the token and what to do.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace tok {

namespace bpe {
class Tokenizer;
}

using TokenId = std::uint32_t;

// What encode and count do with special-token text (<|endoftext|>) in the input.
enum class SpecialMode {
  kError,  // refuse the text, naming the token (tiktoken's encode; `tok encode`'s default)
  kAllow,  // encode each occurrence as its special id
  kText,   // encode it as ordinary text (tiktoken's encode_ordinary)
};

class Encoding {
 public:
  // `spec` is what `tok -e` takes: a vocabulary name (o200k_base, cl100k_base,
  // qwen3, ...: `tok vocab list`) or the path of a vocabulary (.tiktoken,
  // tokenizer.json, .gguf, or a folder holding tokenizer.json or vocab.json +
  // merges.txt). Names are looked up in $TOK_VOCAB_DIR when set, else in
  // ../share/tok/vocab from the running program when it lies in a bin/
  // folder that has one, else in the vocab/ folder of the checkout the
  // library was built from.
  static Result<Encoding> load(std::string_view spec);

  // The vocabulary's name (o200k_base; a file's name for a path).
  const std::string& name() const;
  // One past the largest token id, special tokens included.
  std::size_t vocab_size() const;

  Result<std::vector<TokenId>> encode(std::string_view text,
                                      SpecialMode mode = SpecialMode::kError) const;
  // encode(text, mode)'s size, without building the ids. With threads > 1 a
  // large text is counted in parallel; the count never depends on threads.
  Result<std::size_t> count(std::string_view text, SpecialMode mode = SpecialMode::kError,
                            unsigned threads = 1) const;
  // The bytes of the ids, in order; an id the vocabulary lacks is an error.
  Result<std::string> decode(std::span<const TokenId> ids) const;

 private:
  explicit Encoding(std::shared_ptr<const bpe::Tokenizer> tokenizer);
  std::shared_ptr<const bpe::Tokenizer> tokenizer_;
};

}  // namespace tok
