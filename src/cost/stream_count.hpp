// Counting an unbounded stream (stdin, a pipe) in bounded memory, chunk by
// chunk (StreamChunks): the count equals counting the whole stream at once.
#pragma once

#include <cstddef>
#include <cstdint>

#include "bpe/tokenizer.hpp"
#include "core/result.hpp"
#include "cost/stream_chunks.hpp"

namespace tok::cost {

struct StreamCount {
  std::uint64_t bytes = 0;
  std::uint64_t tokens = 0;
  std::size_t peak_buffer = 0;  // largest buffer held, for tests
};

Result<StreamCount> count_stream(int fd, const std::string& name, const bpe::Tokenizer& tk,
                                 bpe::SpecialMode mode, unsigned threads,
                                 std::size_t block = kStreamBlock);

}  // namespace tok::cost
