// Counting an unbounded stream (stdin, a pipe) in bounded memory: read blocks,
// count up to the last guaranteed piece boundary in the buffer and carry the
// tail over to the next block. The count equals counting the whole stream at
// once. Memory is about two blocks, unless the input has no guaranteed
// boundary for longer than that (one giant piece), when the buffer grows.
#pragma once

#include <cstddef>
#include <cstdint>

#include "bpe/tokenizer.hpp"
#include "core/result.hpp"

namespace tok::cost {

inline constexpr std::size_t kStreamBlock = 8u << 20;

struct StreamCount {
  std::uint64_t bytes = 0;
  std::uint64_t tokens = 0;
  std::size_t peak_buffer = 0;  // largest buffer held, for tests
};

Result<StreamCount> count_stream(int fd, const std::string& name, const bpe::Tokenizer& tk,
                                 bpe::SpecialMode mode, unsigned threads,
                                 std::size_t block = kStreamBlock);

}  // namespace tok::cost
