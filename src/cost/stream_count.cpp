#include "cost/stream_count.hpp"

namespace tok::cost {

Result<StreamCount> count_stream(int fd, const std::string& name, const bpe::Tokenizer& tk,
                                 bpe::SpecialMode mode, unsigned threads, std::size_t block) {
  StreamCount sc;
  StreamChunks chunks(fd, name, tk, mode, block);
  for (;;) {
    TOK_ASSIGN(std::string_view chunk, chunks.next());
    if (chunk.empty()) break;
    TOK_ASSIGN(std::size_t n, tk.count(chunk, mode, threads));
    sc.tokens += n;
    sc.bytes += chunk.size();
  }
  sc.peak_buffer = chunks.peak_buffer();
  return sc;
}

}  // namespace tok::cost
