// Counting an unbounded stream (stdin, a pipe) in bounded memory, chunk by
// chunk (StreamChunks): the counts equal counting the whole stream at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "bpe/tokenizer.hpp"
#include "core/result.hpp"
#include "io/stream_chunks.hpp"

namespace tok::io {

struct StreamCount {
  std::uint64_t bytes = 0;
  std::vector<std::uint64_t> tokens;  // (tokenizers)
  std::size_t peak_buffer = 0;        // largest buffer held, for tests
};

// The stream's tokens under each tokenizer (cut where all can be cut). A
// special token that kError refuses is named with its byte in the stream.
Result<StreamCount> count_stream(int fd, const std::string& name,
                                 std::span<const bpe::Tokenizer* const> tks, bpe::SpecialMode mode,
                                 unsigned threads, std::size_t block = kStreamBlock);

}  // namespace tok::io
