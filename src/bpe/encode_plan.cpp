// The one encoding plan of a Tokenizer, and its outputs. Every public way
// to encode (ids, count, spans, threaded count) runs `run` with a different
// sink, so they cannot disagree:
//
//   input -> refuse specials (kError) -> split at the special tokens the
//   mode matches -> transform each run of ordinary text (normalizer, with an
//   alignment back to the input when spans are wanted) -> pre-tokenize ->
//   merge (batches of pieces, encode_pieces) -> sink
//
// Specials are found in the raw text and the transform applies per run, as
// Hugging Face does (added tokens are split out before normalization). With
// no transform and no special matched (the built-in encodings in kText and
// kError) the plan is the text straight into the pre-tokenizer and the
// batched merge loop: the same hot loop as before it was one plan.
#include <algorithm>

#include "bpe/shared_piece_cache.hpp"
#include "bpe/tokenizer.hpp"
#include "core/thread_pool.hpp"

namespace tok::bpe {

template <class F>
void Tokenizer::split_level(std::size_t level, std::string_view text, F& f) const {
  if (level + 1 == pre_.size()) {
    pre_[level].split(text, f);
  } else {
    pre_[level].split(text, [&](std::string_view piece) { split_level(level + 1, piece, f); });
  }
}

template <class F>
void Tokenizer::for_each_piece(std::string_view text, F&& f) const {
  if (pre_.empty()) {
    if (!text.empty()) f(text);
    return;
  }
  split_level(0, text, f);
}

namespace {
bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

// Sinks: what the plan's tokens become. `pieces` gets a batch of pieces of
// one run (views into `text`, the run after its transform); `to_input` is
// the run's alignment (null: identity) and `base` where the run starts in
// the input. kSpans says whether the plan must build the alignment.
struct IdSink {
  static constexpr bool kSpans = false;
  const MergeTable& table;
  std::vector<TokenId>& out;
  void pieces(std::string_view, const std::string_view* batch, std::size_t n,
              const std::vector<std::size_t>*, std::size_t, EncodeScratch& scratch) {
    encode_pieces(table, batch, n, &out, nullptr, scratch);
  }
  void special(TokenId id, std::size_t, std::size_t) { out.push_back(id); }
};

struct CountSink {
  static constexpr bool kSpans = false;
  const MergeTable& table;
  std::size_t n = 0;
  void pieces(std::string_view, const std::string_view* batch, std::size_t k,
              const std::vector<std::size_t>*, std::size_t, EncodeScratch& scratch) {
    encode_pieces(table, batch, k, nullptr, &n, scratch);
  }
  void special(TokenId, std::size_t, std::size_t) { ++n; }
};

struct SpanSink {
  static constexpr bool kSpans = true;
  const MergeTable& table;
  std::vector<TokenSpan>& out;
  std::vector<TokenId> ids;

  // Pieces tile the run, so the tokens of a batch of consecutive pieces
  // cover its bytes in order: each token starts where the previous one ends.
  // A batch where the lengths do not add up (an unknown token) is redone
  // piece by piece, each piece's last token ending at the piece's end.
  void pieces(std::string_view text, const std::string_view* batch, std::size_t n,
              const std::vector<std::size_t>* to_input, std::size_t base, EncodeScratch& scratch) {
    auto at = [&](const char* p) { return static_cast<std::size_t>(p - text.data()); };
    ids.clear();
    encode_pieces(table, batch, n, &ids, nullptr, scratch);
    std::size_t start = at(batch[0].data()), end = at(batch[n - 1].data()) + batch[n - 1].size();
    std::size_t off = start, first = out.size();
    for (TokenId id : ids) {
      std::size_t len = table.bytes(id).size();
      out.push_back({id, off, off + len});
      off += len;
    }
    if (off != end) {
      out.resize(first);
      for (std::size_t i = 0; i < n; ++i) {
        ids.clear();
        encode_piece(table, batch[i], ids, scratch);
        std::size_t b = at(batch[i].data()), e = b + batch[i].size();
        for (std::size_t k = 0; k < ids.size(); ++k) {
          std::size_t len = std::min(table.bytes(ids[k]).size(), e - b);
          std::size_t stop = k + 1 == ids.size() ? e : b + len;
          out.push_back({ids[k], b, stop});
          b = stop;
        }
      }
    }
    // Rewritten-text offsets back to the input's.
    for (std::size_t k = first; k < out.size(); ++k) {
      TokenSpan& s = out[k];
      if (to_input) {
        s.begin = (*to_input)[s.begin];
        s.end = (*to_input)[s.end];
      }
      s.begin += base;
      s.end += base;
    }
  }
  void special(TokenId id, std::size_t begin, std::size_t end) { out.push_back({id, begin, end}); }
};

}  // namespace

template <class O, class S>
void Tokenizer::for_each_segment(std::string_view text, SpecialMode mode, O&& ordinary,
                                 S&& special) const {
  Match which = mode == SpecialMode::kAllow ? Match::kAll : Match::kAlways;
  std::size_t pos = 0;
  for (;;) {
    auto [at, k] = find_special(text, pos, which);
    if (at == std::string_view::npos) break;
    const SpecialToken& sp = specials_[k];
    std::size_t end = at;
    if (sp.lstrip) {
      while (end > pos && is_space(text[end - 1])) --end;
    }
    if (end > pos) ordinary(text.substr(pos, end - pos), pos);
    pos = at + sp.text.size();
    if (sp.rstrip) {
      while (pos < text.size() && is_space(text[pos])) ++pos;
    }
    special(sp.id, end, pos);
  }
  if (pos < text.size()) ordinary(text.substr(pos), pos);
}

template <class Sink>
void Tokenizer::run_ordinary(std::string_view run, std::size_t offset, Sink& sink,
                             EncodeScratch& scratch) const {
  std::string transformed;
  std::vector<std::size_t> to_input;
  std::string_view text = run;
  const std::vector<std::size_t>* align = nullptr;
  if (segment_transform_) {
    transformed = segment_transform_(run, offset, Sink::kSpans ? &to_input : nullptr);
    text = transformed;
    if (Sink::kSpans) align = &to_input;
  }
  // Pieces go to the merge loop in batches (encode_pieces overlaps their
  // cache misses); they are views into text, valid until this returns.
  std::string_view batch[kPieceBatch];
  std::size_t n = 0;
  for_each_piece(text, [&](std::string_view piece) {
    batch[n++] = piece;
    if (n == kPieceBatch) {
      sink.pieces(text, batch, n, align, offset, scratch);
      n = 0;
    }
  });
  if (n) sink.pieces(text, batch, n, align, offset, scratch);
}

template <class Sink>
Status Tokenizer::run(std::string_view text, SpecialMode mode, Sink& sink,
                      EncodeScratch& scratch) const {
  if (mode == SpecialMode::kError && !specials_.empty()) TOK_TRY(check_no_specials(text));
  scratch.expect_bytes(text.size());
  // The merge loop has no error path and throws PieceTooLong; this one try
  // per call (free when nothing is thrown) makes it the Status of every
  // public entry point, so no exception leaves the Tokenizer.
  try {
    if (!matches_specials(mode)) {
      if (!text.empty()) run_ordinary(text, 0, sink, scratch);
      return {};
    }
    for_each_segment(
        text, mode,
        [&](std::string_view run, std::size_t at) { run_ordinary(run, at, sink, scratch); },
        [&](TokenId id, std::size_t begin, std::size_t end) { sink.special(id, begin, end); });
  } catch (const PieceTooLong& e) {
    return Error{e.what()};
  }
  return {};
}

Status Tokenizer::encode(std::string_view text, SpecialMode mode, std::vector<TokenId>& out,
                         EncodeScratch& scratch) const {
  IdSink sink{table_, out};
  return run(text, mode, sink, scratch);
}

Result<std::vector<TokenId>> Tokenizer::encode(std::string_view text, SpecialMode mode) const {
  std::vector<TokenId> out;
  EncodeScratch scratch;
  TOK_TRY(encode(text, mode, out, scratch));
  return out;
}

Status Tokenizer::encode_spans(std::string_view text, SpecialMode mode, std::vector<TokenSpan>& out,
                               EncodeScratch& scratch) const {
  SpanSink sink{table_, out, {}};
  return run(text, mode, sink, scratch);
}

Status Tokenizer::encode_spans(std::string_view text, SpecialMode mode,
                               std::vector<TokenSpan>& out) const {
  EncodeScratch scratch;
  return encode_spans(text, mode, out, scratch);
}

Result<std::size_t> Tokenizer::count(std::string_view text, SpecialMode mode,
                                     EncodeScratch& scratch) const {
  CountSink sink{table_};
  TOK_TRY(run(text, mode, sink, scratch));
  return sink.n;
}

Result<std::size_t> Tokenizer::count(std::string_view text, SpecialMode mode,
                                     unsigned threads) const {
  if (threads <= 1 || text.size() < 2 * kParallelChunk || !can_cut()) {
    EncodeScratch scratch;
    return count(text, mode, scratch);
  }
  // Refused once for the whole text; the chunks then run the same plan.
  if (mode == SpecialMode::kError && !specials_.empty()) TOK_TRY(check_no_specials(text));
  if (mode == SpecialMode::kError) mode = SpecialMode::kText;
  std::vector<std::size_t> cuts = parallel_boundaries(text, threads, mode);
  std::size_t nchunks = cuts.size() - 1;
  // More threads than chunks would only idle (and --threads 100000 would
  // exhaust the system's threads).
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, nchunks));
  std::vector<std::size_t> counts(nchunks, 0);
  // Chunks are handed out one at a time: text and code encode at different
  // speeds, so a fixed assignment would leave one thread idle at the end.
  ThreadPool pool(threads);
  auto shared = SharedPieceCache::create(text.size());
  std::vector<EncodeScratch> scratch(pool.size());
  for (EncodeScratch& s : scratch) s.shared = shared.get();
  TOK_TRY(pool.for_each(nchunks, [&](std::size_t c, unsigned w) -> Status {
    CountSink sink{table_};
    TOK_TRY(run(text.substr(cuts[c], cuts[c + 1] - cuts[c]), mode, sink, scratch[w]));
    counts[c] = sink.n;
    return {};
  }));
  std::size_t total = 0;
  for (std::size_t c : counts) total += c;
  return total;
}

}  // namespace tok::bpe
