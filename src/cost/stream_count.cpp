#include "cost/stream_count.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

namespace tok::cost {

namespace {

// Bytes kept back from the end before searching for a cut, so the cut never
// depends on bytes not yet read (a split UTF-8 character, a lookahead).
constexpr std::size_t kMargin = 1 << 12;

// The last guaranteed boundary in buf (excluding its end), or 0.
std::size_t last_cut(const bpe::Tokenizer& tk, std::string_view buf, std::size_t chunk,
                     bpe::SpecialMode mode) {
  if (buf.size() <= kMargin) return 0;
  auto cuts = tk.chunk_boundaries(buf.substr(0, buf.size() - kMargin), chunk, mode);
  return cuts.size() >= 3 ? cuts[cuts.size() - 2] : 0;
}

}  // namespace

Result<StreamCount> count_stream(int fd, const std::string& name, const bpe::Tokenizer& tk,
                                 bpe::SpecialMode mode, unsigned threads, std::size_t block) {
  StreamCount sc;
  std::string buf;
  buf.reserve(2 * block);
  bool eof = false;
  while (!eof) {
    // Fill the buffer to at least one block beyond what is carried over.
    std::size_t target = buf.size() + block;
    while (buf.size() < target) {
      std::size_t old = buf.size();
      buf.resize(target);
      ssize_t r = ::read(fd, buf.data() + old, target - old);
      if (r < 0 && errno == EINTR) {
        buf.resize(old);
        continue;
      }
      if (r < 0) return make_error("{}: read failed: {}", name, std::strerror(errno));
      buf.resize(old + static_cast<std::size_t>(r));
      if (r == 0) {
        eof = true;
        break;
      }
    }
    sc.peak_buffer = std::max(sc.peak_buffer, buf.capacity());
    std::size_t cut = eof ? buf.size() : last_cut(tk, buf, std::max<std::size_t>(block / 8, 1 << 16), mode);
    if (cut == 0) continue;
    TOK_ASSIGN(std::size_t n, tk.count(std::string_view(buf).substr(0, cut), mode, threads));
    sc.tokens += n;
    sc.bytes += cut;
    buf.erase(0, cut);
  }
  return sc;
}

}  // namespace tok::cost
