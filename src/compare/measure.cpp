#include "compare/measure.hpp"

#include <unicode/uscript.h>

#include <algorithm>
#include <climits>
#include <optional>

#include "compare/ascii_segment.hpp"
#include "compare/word_bits.hpp"
#include "core/thread_pool.hpp"
#include "core/utf8.hpp"

namespace tok::compare {
namespace {

constexpr std::size_t kScripts = USCRIPT_CODE_LIMIT;
using ScriptHistogram = std::vector<std::size_t>;  // (kScripts) code points per script

// Script of every BMP code point, from ICU (a table lookup per code point
// instead of a uscript_getScript call). Immutable once built.
class BmpScripts {
 public:
  static const BmpScripts& get() {
    static const BmpScripts table;
    return table;
  }
  int of(UChar32 c) const {
    if (c < 0x10000) return table_[static_cast<std::size_t>(c)];
    UErrorCode st = U_ZERO_ERROR;
    UScriptCode sc = uscript_getScript(c, &st);
    return U_SUCCESS(st) ? sc : USCRIPT_COMMON;
  }

 private:
  static_assert(kScripts <= 256, "script codes must fit the byte table");
  BmpScripts() : table_(0x10000) {
    for (UChar32 c = 0; c < 0x10000; ++c) {
      UErrorCode st = U_ZERO_ERROR;
      UScriptCode sc = uscript_getScript(c, &st);
      table_[static_cast<std::size_t>(c)] =
          static_cast<std::uint8_t>(U_SUCCESS(st) && sc < static_cast<int>(kScripts) ? sc : 0);
    }
  }
  std::vector<std::uint8_t> table_;  // (0x10000) UScriptCode
};

void add_scripts(std::string_view text, ScriptHistogram& h) {
  const BmpScripts& scripts = BmpScripts::get();
  for (std::size_t i = 0; i < text.size();) {
    // ASCII is Latin letters or Common, 16 bytes at a time.
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      detail::AsciiLetters run = detail::ascii_letters(text, i);
      h[USCRIPT_LATIN] += run.letters;
      i = run.end;
      continue;
    }
    // A byte that is not UTF-8 is U+FFFD, of no script.
    utf8::Decoded d = utf8::decode_at(text, i);
    i += d.len;
    int sc = d.valid ? scripts.of(static_cast<UChar32>(d.cp)) : USCRIPT_COMMON;
    if (sc > USCRIPT_INHERITED && sc < static_cast<int>(kScripts))
      ++h[static_cast<std::size_t>(sc)];
  }
}

// Byte length of every id of a vocabulary (Tokenizer::token_bytes looks
// through the special tokens first, too slow once per token).
TokenLengths token_lengths(const bpe::Tokenizer& tk) {
  TokenLengths t;
  t.len.resize(tk.vocab_size());
  t.long_len.resize(tk.vocab_size());
  for (std::size_t id = 0; id < t.len.size(); ++id) {
    std::size_t n = tk.token_bytes(static_cast<bpe::TokenId>(id)).size();
    t.long_len[id] = static_cast<std::uint32_t>(n);
    t.len[id] = static_cast<std::uint8_t>(std::min<std::size_t>(n, 255));
  }
  return t;
}

// Per-thread scratch and totals.
struct Worker {
  std::optional<Segmenter> seg;
  WordBits bits;                  // the unit's words
  std::vector<ByteSpan> words;    // as spans, for vocabularies that need them
  bool have_spans = false;        // words holds the unit's
  std::vector<bpe::TokenId> ids;  // of one part of the unit
  TokenStarts token_starts;
  std::vector<bpe::TokenSpan> spans;
  // (vocabularies): one per vocabulary, as the scratch holds its piece cache
  std::vector<bpe::EncodeScratch> scratch;
};

struct Unit {
  std::size_t sample;
  std::string_view text;
};

// Parts of a unit that a tiled vocabulary encodes at a time: their ids (4
// bytes a token) stay in cache until their starts are marked (with whole
// 4 MiB units, 5 MB of ids, marking them took about a third longer).
constexpr std::size_t kPartBytes = std::size_t{256} << 10;

// Tokens and continued words of a vocabulary whose tokens tile the text
// (Tokenizer::tiles_input), on a unit whose words are in w.bits. The parts
// are cut at the vocabulary's chunk boundaries, so the tokens are the whole
// unit's. nullopt if they do not tile it after all.
std::optional<TokenCounts> count_by_ids(const bpe::Tokenizer& tk, std::string_view text,
                                        bpe::SpecialMode mode, const TokenLengths& lengths,
                                        Worker& w, std::size_t v) {
  std::vector<std::size_t> cuts = tk.chunk_boundaries(text, kPartBytes, mode);
  w.token_starts.reset(w.bits);
  TokenCounts c;
  for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
    w.ids.clear();
    std::string_view part = text.substr(cuts[k], cuts[k + 1] - cuts[k]);
    if (!tk.encode(part, mode, w.ids, w.scratch[v]).ok()) return std::nullopt;
    if (!w.token_starts.add(part.size(), w.ids, lengths)) return std::nullopt;
    c.tokens += w.ids.size();
  }
  std::optional<std::size_t> continued = w.token_starts.count_continued();
  if (!continued) return std::nullopt;
  c.continued_words = *continued;
  return c;
}

// The same for any vocabulary, from the token spans (which index the unit's
// own bytes, whatever the normalizer rewrote) and the words as spans.
Status count_by_spans(const bpe::Tokenizer& tk, std::string_view text, bpe::SpecialMode mode,
                      Worker& w, std::size_t v, TokenCounts& out) {
  w.spans.clear();
  TOK_TRY(tk.encode_spans(text, mode, w.spans, w.scratch[v]));
  if (!w.have_spans) {
    w.words.clear();
    w.bits.spans(w.words);
    w.have_spans = true;
  }
  out.tokens += w.spans.size();
  out.continued_words += count_continued_words(w.words, w.spans);
  return {};
}

}  // namespace

std::size_t chunk_size(std::size_t bytes, unsigned threads) {
  constexpr std::size_t kMin = std::size_t{4} << 20, kMax = std::size_t{64} << 20;
  return std::clamp(bytes / (8 * std::size_t{std::max(1u, threads)}), kMin, kMax);
}

std::vector<std::size_t> line_chunks(std::string_view text, std::size_t chunk_bytes) {
  std::vector<std::size_t> cuts{0};
  std::size_t pos = 0;
  while (text.size() - pos > chunk_bytes) {
    std::size_t cut = std::string_view::npos;
    for (std::size_t at = pos + chunk_bytes; at + 1 < text.size(); ++at) {
      at = text.find('\n', at);
      if (at == std::string_view::npos || at + 1 >= text.size()) break;
      auto before = static_cast<unsigned char>(text[at - 1]);
      auto after = static_cast<unsigned char>(text[at + 1]);
      if (before > 0x20 && before < 0x7F && (after | 0x20) >= 'a' && (after | 0x20) <= 'z') {
        cut = at + 1;
        break;
      }
    }
    if (cut == std::string_view::npos) break;
    cuts.push_back(cut);
    pos = cut;
  }
  cuts.push_back(text.size());
  return cuts;
}

Result<std::vector<SampleCounts>> measure(const Corpus& corpus,
                                          std::span<const bpe::Tokenizer* const> vocabs,
                                          const MeasureOptions& options) {
  bool cut = std::all_of(vocabs.begin(), vocabs.end(),
                         [](const bpe::Tokenizer* t) { return t->can_cut(); });
  std::size_t corpus_bytes = 0;
  for (const Sample& sample : corpus.samples) corpus_bytes += sample.text.bytes().size();
  const std::size_t chunk_bytes =
      options.chunk_bytes ? options.chunk_bytes : chunk_size(corpus_bytes, options.threads);
  std::vector<Unit> units;
  for (std::size_t i = 0; i < corpus.samples.size(); ++i) {
    std::string_view text = corpus.samples[i].text.bytes();
    std::vector<std::size_t> cuts =
        cut ? line_chunks(text, chunk_bytes) : std::vector<std::size_t>{0, text.size()};
    for (std::size_t c = 0; c + 1 < cuts.size(); ++c) {
      std::string_view part = text.substr(cuts[c], cuts[c + 1] - cuts[c]);
      if (options.words && part.size() > static_cast<std::size_t>(INT32_MAX)) {
        return make_error("{}: a line longer than 2 GiB; ICU cannot segment it",
                          corpus.samples[i].origin);
      }
      units.push_back({i, part});
    }
  }
  // Biggest first, so one huge sample does not start last.
  std::stable_sort(units.begin(), units.end(),
                   [](const Unit& a, const Unit& b) { return a.text.size() > b.text.size(); });

  std::size_t ns = corpus.samples.size(), nv = vocabs.size();
  ThreadPool pool(
      static_cast<unsigned>(std::min<std::size_t>(std::max(1u, options.threads), units.size())));
  unsigned nthreads = pool.size();
  // Per thread: (samples) text counts, (samples x vocabularies) token counts,
  // (samples x scripts) histograms.
  std::vector<std::vector<TextCounts>> text(nthreads, std::vector<TextCounts>(ns));
  std::vector<std::vector<TokenCounts>> toks(nthreads, std::vector<TokenCounts>(ns * nv));
  std::vector<std::vector<ScriptHistogram>> scripts(nthreads);
  // (vocabularies): token byte lengths, and whether the tokens tile the text.
  std::vector<TokenLengths> lengths;
  std::vector<char> tiled;
  if (options.words) {
    for (const bpe::Tokenizer* tk : vocabs) {
      lengths.push_back(token_lengths(*tk));
      tiled.push_back(tk->tiles_input(options.special));
    }
  }
  std::vector<Worker> workers(nthreads);
  // The first unit that fails stops every thread (ThreadPool::for_each).
  Status st = pool.for_each(units.size(), [&](std::size_t u, unsigned t) -> Status {
    Worker& w = workers[t];
    if (w.scratch.empty()) {
      w.scratch.resize(nv);
      if (options.words) {
        TOK_ASSIGN(Segmenter seg, Segmenter::create());
        w.seg.emplace(std::move(seg));
        scripts[t].assign(ns, ScriptHistogram(kScripts, 0));
      }
    }
    const Unit& unit = units[u];
    TextCounts& tc = text[t][unit.sample];
    tc.bytes += unit.text.size();
    if (options.words) {
      tc.graphemes += w.seg->segment(unit.text, w.bits);
      tc.words += w.bits.count();
      w.have_spans = false;
      add_scripts(unit.text, scripts[t][unit.sample]);
    }
    for (std::size_t v = 0; v < nv; ++v) {
      const bpe::Tokenizer& tk = *vocabs[v];
      TokenCounts& out = toks[t][unit.sample * nv + v];
      if (!options.words) {
        auto n = tk.count(unit.text, options.special, w.scratch[v]);
        if (!n.ok())
          return make_error("{}: {}", corpus.samples[unit.sample].origin, n.error().message);
        out.tokens += *n;
        continue;
      }
      if (tiled[v]) {
        if (auto c = count_by_ids(tk, unit.text, options.special, lengths[v], w, v)) {
          out += *c;
          continue;
        }
      }
      Status s = count_by_spans(tk, unit.text, options.special, w, v, out);
      if (!s.ok())
        return make_error("{}: {}", corpus.samples[unit.sample].origin, s.error().message);
    }
    return {};
  });
  if (!st.ok()) return st.error();

  std::vector<SampleCounts> result(ns);
  for (std::size_t i = 0; i < ns; ++i) {
    result[i].vocab.resize(nv);
    ScriptHistogram total(kScripts, 0);
    for (unsigned t = 0; t < nthreads; ++t) {
      result[i].text += text[t][i];
      for (std::size_t v = 0; v < nv; ++v) result[i].vocab[v] += toks[t][i * nv + v];
      if (!scripts[t].empty()) {
        for (std::size_t k = 0; k < kScripts; ++k) total[k] += scripts[t][i][k];
      }
    }
    auto best = std::max_element(total.begin(), total.end());
    if (best != total.end() && *best > 0) {
      result[i].main_script = uscript_getName(static_cast<UScriptCode>(best - total.begin()));
    }
  }
  return result;
}

}  // namespace tok::compare
