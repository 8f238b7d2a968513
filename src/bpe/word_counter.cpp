#include "bpe/word_counter.hpp"

#include <algorithm>

#include "core/thread_pool.hpp"

namespace tok::bpe {
namespace {

// How far past the target a cut may be searched for.
constexpr std::size_t kCutSearchBytes = 1 << 16;

bool is_ascii_letter(unsigned char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }
bool is_ascii_nonspace(unsigned char c) { return c > 0x20 && c < 0x7f; }

bool builtin_pattern(const text::PreTokenizer& pre) {
  if (pre.scanner() != text::Scanner::kRegex) return true;
  for (const char* name : {"gpt2", "cl100k", "o200k"}) {
    auto p = text::PreTokenizer::named(name);
    if (p.ok() && p->pattern() == pre.pattern()) return true;
  }
  return false;
}

// A position just after a "\n" that sits between a non-space ASCII byte and
// an ASCII letter, in [from, limit); npos if none.
std::size_t newline_cut(std::string_view text, std::size_t from, std::size_t limit) {
  limit = std::min(limit, text.size());
  for (std::size_t i = std::max<std::size_t>(from, 1); i + 1 < limit; ++i) {
    if (text[i] != '\n') continue;
    if (is_ascii_nonspace(static_cast<unsigned char>(text[i - 1])) &&
        is_ascii_letter(static_cast<unsigned char>(text[i + 1]))) {
      return i + 1;
    }
  }
  return std::string_view::npos;
}

struct Chunk {
  std::size_t text;
  std::size_t begin, end;
};

}  // namespace

std::vector<std::size_t> count_chunk_cuts(const text::PreTokenizer& pre, std::string_view text,
                                          std::size_t chunk) {
  std::vector<std::size_t> cuts{0};
  bool newline_ok = builtin_pattern(pre);
  std::size_t pos = 0;
  while (text.size() - pos > chunk + chunk / 2) {
    std::size_t target = pos + chunk;
    std::size_t cut = pre.safe_boundary(text, target, kCutSearchBytes);
    if (cut >= text.size() && newline_ok) {
      cut = newline_cut(text, target, target + kCutSearchBytes);
      if (cut == std::string_view::npos) cut = text.size();
    }
    if (cut >= text.size()) break;
    cuts.push_back(cut);
    pos = cut;
  }
  cuts.push_back(text.size());
  return cuts;
}

WordCounts count_words(const text::PreTokenizer& pre, std::span<const std::string_view> texts,
                       unsigned threads, CountProgress* progress) {
  std::vector<Chunk> chunks;
  for (std::size_t t = 0; t < texts.size(); ++t) {
    std::vector<std::size_t> cuts = count_chunk_cuts(pre, texts[t]);
    for (std::size_t k = 0; k + 1 < cuts.size(); ++k) chunks.push_back({t, cuts[k], cuts[k + 1]});
  }
  ThreadPool pool(
      static_cast<unsigned>(std::min<std::size_t>(std::max(1u, threads), chunks.size())));
  std::vector<WordCounts> tables(pool.size());
  (void)pool.for_each(chunks.size(), [&](std::size_t c, unsigned w) {
    const Chunk& ch = chunks[c];
    std::string_view part = texts[ch.text].substr(ch.begin, ch.end - ch.begin);
    pre.split(part, [&](std::string_view piece) { tables[w].add(piece); });
    if (progress) progress->bytes_done.fetch_add(part.size(), std::memory_order_relaxed);
  });
  // Merge into the largest table (fewest insertions of new words).
  std::size_t big = 0;
  for (std::size_t w = 1; w < tables.size(); ++w) {
    if (tables[w].size() > tables[big].size()) big = w;
  }
  for (std::size_t w = 0; w < tables.size(); ++w) {
    if (w != big) {
      tables[big].merge_from(tables[w]);
      tables[w] = WordCounts();
    }
  }
  return std::move(tables[big]);
}

}  // namespace tok::bpe
