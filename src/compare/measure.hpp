// measure(): counts every (vocabulary x sample) pair of a corpus, in
// parallel. Work is cut into units (sample, chunk) handed out one at a time
// by core's ThreadPool (the first unit that fails stops the others); each
// thread has its own Segmenter and buffers
// and adds into its own totals, merged at the end, so results never depend on
// the thread count.
//
// Large samples are cut into chunks (chunk_size()), only just after a "\n"
// that follows a printable ASCII character and precedes an ASCII letter: the
// point where the named pre-tokenizer scanners guarantee a piece boundary
// (text::PreTokenizer::safe_boundary), and where no grapheme or word spans.
// (A newline followed by any non-space byte was not enough: "\n\f" is one
// whitespace piece.) Vocabularies with a text transform (SentencePiece), a
// general regex or several pre-tokenizers could tokenize a cut text
// differently, so with one of them samples are not cut.
//
// Text counts (graphemes, words, scripts) are the same for every vocabulary
// and computed once per chunk; each vocabulary then encodes the chunk once
// (with word metrics through its token ids, else the count-only path).
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <vector>

#include "bpe/tokenizer.hpp"
#include "compare/corpus.hpp"
#include "compare/metrics.hpp"
#include "core/result.hpp"

namespace tok::compare {

struct MeasureOptions {
  unsigned threads = 1;
  bool words = true;  // graphemes, words, continued words, scripts (ICU)
  bpe::SpecialMode special = bpe::SpecialMode::kText;
  std::size_t chunk_bytes = 0;  // 0: chunk_size() picks it
};

struct SampleCounts {
  TextCounts text;
  std::vector<TokenCounts> vocab;  // (vocabularies)
  std::string main_script;         // the most frequent script of its letters
};

// Results in the order of corpus.samples.
Result<std::vector<SampleCounts>> measure(const Corpus& corpus,
                                          std::span<const bpe::Tokenizer* const> vocabs,
                                          const MeasureOptions& options);

// The chunk size for a corpus of `bytes` on `threads` threads: 4 MiB, or
// more for a large corpus, about 8 chunks a thread, up to 64 MiB. Each
// vocabulary encodes a whole chunk before the next vocabulary starts, so
// fewer, larger chunks keep its caches warm (on the 657 MB bench corpus
// 32 MiB chunks took about 7% less CPU than 4 MiB ones with --no-words, 3%
// with word metrics, two threads on one CPU), and 8 a thread, biggest
// first, still keep the threads busy to the end.
std::size_t chunk_size(std::size_t bytes, unsigned threads);

// Cut points 0 = c0 < ... < cn = text.size() as described above.
std::vector<std::size_t> line_chunks(std::string_view text, std::size_t chunk_bytes);

}  // namespace tok::compare
