// Reading an unbounded stream (stdin, a pipe, a device) in bounded memory,
// for tokenizing it as it arrives: blocks are read, and handed out up to
// the last guaranteed piece boundary in the buffer; the tail is carried over
// to the next block. Encoding or counting the chunks one after another
// gives exactly the tokens of the whole stream. Memory is about two blocks,
// unless the input has no guaranteed boundary for longer than that (one
// giant piece), when the buffer grows up to a limit (kMaxUncutStream).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bpe/tokenizer.hpp"
#include "core/result.hpp"

namespace tok::io {

inline constexpr std::size_t kStreamBlock = 8u << 20;
// The most of a stream read while no cut is found: past a piece of
// bpe::kMaxPieceBytes (plus a block) where the tokenizers can cut, past this
// where one cannot (it needs the stream whole), next() returns an error
// instead of growing the buffer.
inline constexpr std::size_t kMaxUncutStream = std::size_t{1} << 30;

class StreamChunks {
 public:
  // Cuts never fall inside a special token that `mode` matches, nor, for
  // kError, inside one that would be refused (it is seen whole).
  StreamChunks(int fd, std::string name, const bpe::Tokenizer& tk, bpe::SpecialMode mode,
               std::size_t block = kStreamBlock);
  // Cut only where every one of the tokenizers can be cut (several columns
  // of `tok count`); with no common boundary the stream is read whole.
  StreamChunks(int fd, std::string name, std::vector<const bpe::Tokenizer*> tks,
               bpe::SpecialMode mode, std::size_t block = kStreamBlock);
  // The next chunk, empty at the end of the stream; valid until the next call.
  Result<std::string_view> next();
  // Where the chunk next() returned last starts in the stream.
  std::uint64_t offset() const { return offset_; }
  std::size_t peak_buffer() const { return peak_; }

 private:
  int fd_;
  std::string name_;
  std::vector<const bpe::Tokenizer*> tks_;
  bpe::SpecialMode mode_;
  std::size_t block_;
  std::string buf_;
  std::size_t handed_ = 0;  // bytes of buf_ handed out by the last next()
  std::uint64_t offset_ = 0;
  std::size_t peak_ = 0;
  std::size_t limit_ = 0;  // the buffer's size past which no cut is an error
  bool eof_ = false;
};

}  // namespace tok::io
