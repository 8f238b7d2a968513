#include "io/stream_count.hpp"

namespace tok::io {

Result<StreamCount> count_stream(int fd, const std::string& name,
                                 std::span<const bpe::Tokenizer* const> tks, bpe::SpecialMode mode,
                                 unsigned threads, std::size_t block) {
  StreamCount sc;
  sc.tokens.assign(tks.size(), 0);
  StreamChunks chunks(fd, name, std::vector<const bpe::Tokenizer*>(tks.begin(), tks.end()), mode,
                      block);
  for (;;) {
    TOK_ASSIGN(std::string_view chunk, chunks.next());
    if (chunk.empty()) break;
    for (std::size_t t = 0; t < tks.size(); ++t) {
      const bpe::Tokenizer& tk = *tks[t];
      bpe::SpecialMode m = mode;
      if (m == bpe::SpecialMode::kError) {
        // Checked here, so that the byte named is the stream's.
        if (Status st = tk.check_no_specials(chunk, chunks.offset()); !st.ok()) {
          return make_error("{}: {}", name, st.error().message);
        }
        m = bpe::SpecialMode::kText;
      }
      auto n = tk.count(chunk, m, threads);
      if (!n.ok()) return make_error("{}: {}", name, n.error().message);
      sc.tokens[t] += *n;
    }
    sc.bytes += chunk.size();
  }
  sc.peak_buffer = chunks.peak_buffer();
  return sc;
}

}  // namespace tok::io
