#include "io/token_cut.hpp"

#include <algorithm>

namespace tok::io {
using bpe::SpecialMode;
using bpe::Tokenizer;

namespace {

// A guaranteed piece boundary at or after `from`, or text.size().
std::size_t safe_cut(const Tokenizer& tk, std::string_view text, std::size_t from,
                     SpecialMode mode) {
  return tk.next_boundary(text, from, 1 << 20, mode);
}

// One scratch per cut or chunking run: a fresh one per call costs dozens of
// mmap/munmap calls (its caches), which dominated `chunk -n 1`.
Result<bool> fits(const Tokenizer& tk, std::string_view part, std::size_t n, SpecialMode mode,
                  bpe::EncodeScratch& scratch) {
  TOK_ASSIGN(std::size_t c, tk.count(part, mode, scratch));
  return c <= n;
}

Result<std::vector<std::size_t>> starts_of(const Tokenizer& tk, std::string_view text,
                                           SpecialMode mode, bpe::EncodeScratch& scratch) {
  std::vector<bpe::TokenSpan> spans;
  TOK_TRY(tk.encode_spans(text, mode, spans, scratch));
  std::vector<std::size_t> starts;
  starts.reserve(spans.size());
  for (const bpe::TokenSpan& s : spans) {
    // Tokens that take no input bytes (a SentencePiece prefix space) start
    // where the next one does. Keep strictly increasing.
    if (starts.empty() || s.begin > starts.back()) starts.push_back(s.begin);
  }
  if (starts.empty() || starts[0] != 0) starts.insert(starts.begin(), 0);
  return starts;
}

// Token starts of the first `want` tokens or more of text (or all of it):
// starts of text[0..L) for a guaranteed boundary L. Sets whole when L is the end.
Result<std::vector<std::size_t>> leading_starts(const Tokenizer& tk, std::string_view text,
                                                std::size_t want, SpecialMode mode, bool& whole,
                                                bpe::EncodeScratch& scratch) {
  std::size_t window = std::max<std::size_t>(1 << 16, want * 16);
  for (;;) {
    std::size_t end = safe_cut(tk, text, window, mode);
    TOK_ASSIGN(auto starts, starts_of(tk, text.substr(0, end), mode, scratch));
    whole = end == text.size();
    if (whole || starts.size() > want) return starts;
    window *= 2;
  }
}

}  // namespace

Result<std::vector<std::size_t>> token_starts(const Tokenizer& tk, std::string_view text,
                                              SpecialMode mode) {
  bpe::EncodeScratch scratch;
  return starts_of(tk, text, mode, scratch);
}

Result<std::size_t> fit_prefix(const Tokenizer& tk, std::string_view text, std::size_t n,
                               SpecialMode mode) {
  bpe::EncodeScratch scratch;
  bool whole = false;
  TOK_ASSIGN(auto starts, leading_starts(tk, text, n + kLookahead, mode, whole, scratch));
  TOK_ASSIGN(bool all, fits(tk, text, n, mode, scratch));
  if (whole && all) return text.size();
  // Candidate cuts: starts[i] = end of the first i tokens.
  std::size_t i = std::min(n, starts.size() - 1);
  for (;;) {
    TOK_ASSIGN(bool ok, fits(tk, text.substr(0, starts[i]), n, mode, scratch));
    if (ok || i == 0) break;
    --i;
  }
  std::size_t best = i;
  for (std::size_t j = i + 1; j < starts.size() && j <= best + kLookahead; ++j) {
    TOK_ASSIGN(bool ok, fits(tk, text.substr(0, starts[j]), n, mode, scratch));
    if (ok) best = j;
  }
  return starts[best];
}

Result<std::size_t> fit_suffix(const Tokenizer& tk, std::string_view text, std::size_t n,
                               SpecialMode mode) {
  bpe::EncodeScratch scratch;
  TOK_ASSIGN(bool all, fits(tk, text, n, mode, scratch));
  if (all) return std::size_t{0};
  // Encode only a tail that starts at a guaranteed boundary and holds > n tokens.
  std::size_t window = std::max<std::size_t>(1 << 16, (n + kLookahead) * 16);
  std::size_t base = 0;
  std::vector<std::size_t> starts;
  for (;;) {
    std::size_t from = text.size() > window ? text.size() - window : 0;
    base = from == 0 ? 0 : safe_cut(tk, text, from, mode);
    if (base >= text.size()) base = 0;
    TOK_ASSIGN(starts, starts_of(tk, text.substr(base), mode, scratch));
    if (base == 0 || starts.size() > n + kLookahead) break;
    window *= 2;
  }
  std::string_view tail = text.substr(base);
  // Suffix from starts[i] holds starts.size() - i tokens originally.
  std::size_t t = starts.size();
  std::size_t i = t > n ? t - n : 0;
  for (; i < t; ++i) {
    TOK_ASSIGN(bool ok, fits(tk, tail.substr(starts[i]), n, mode, scratch));
    if (ok) break;
  }
  if (i == t) return text.size();
  std::size_t best = i;
  for (std::size_t k = 1; k <= kLookahead && k <= best; ++k) {
    std::size_t j = best - k;
    TOK_ASSIGN(bool ok, fits(tk, tail.substr(starts[j]), n, mode, scratch));
    if (ok) {
      best = j;
      k = 0;
    }
  }
  return base + starts[best];
}

namespace {

// Token starts of the whole text (and its end, once reached), found a segment
// at a time between guaranteed piece boundaries: each byte is encoded once,
// however small the chunks, and chunks are cut as soon as their tokens are
// known. Starts before the current chunk are dropped now and then.
class Boundaries {
 public:
  Boundaries(const Tokenizer& tk, std::string_view text, SpecialMode mode)
      : tk_(tk), text_(text), mode_(mode) {}

  // Makes b(i) known for i <= want, or all of them; the last index known.
  Result<std::size_t> ensure(std::size_t want) {
    while (encoded_ < text_.size() && b_.size() <= want) {
      std::size_t end = safe_cut(tk_, text_, encoded_ + kSegment, mode_);
      TOK_ASSIGN(auto s, starts_of(tk_, text_.substr(encoded_, end - encoded_), mode_, scratch_));
      for (std::size_t x : s) b_.push_back(encoded_ + x);
      encoded_ = end;
      if (encoded_ == text_.size()) b_.push_back(text_.size());
    }
    return base_ + b_.size() - 1;
  }
  std::size_t operator()(std::size_t i) const { return b_[i - base_]; }
  // Forgets the starts before index i (they are never asked for again).
  void drop_before(std::size_t i) {
    if (i - base_ < kSegment) return;
    b_.erase(b_.begin(), b_.begin() + static_cast<std::ptrdiff_t>(i - base_));
    base_ = i;
  }

 private:
  static constexpr std::size_t kSegment = 1 << 16;
  const Tokenizer& tk_;
  std::string_view text_;
  SpecialMode mode_;
  std::vector<std::size_t> b_;  // starts with index >= base_
  std::size_t base_ = 0;
  std::size_t encoded_ = 0;  // text_[0, encoded_) has its starts in b_
  bpe::EncodeScratch scratch_;
};

// Among the boundaries (first, last] of a piece starting at b(first), a
// paragraph break in the piece's second half, else a line break in its last
// quarter; `last` when there is neither.
std::size_t preferred_cut(const Boundaries& b, std::string_view text, std::size_t first,
                          std::size_t last) {
  std::size_t pos = b(first), len = b(last) - pos;
  std::size_t half = len - len / 2, quarter = len - len / 4;
  std::size_t para = 0, line = 0;
  for (std::size_t i = first + 1; i <= last; ++i) {
    std::size_t r = b(i) - pos;
    if (r < half) continue;
    if (r >= quarter && text[b(i) - 1] == '\n') line = i;
    if (r >= 2 && text[b(i) - 1] == '\n' && text[b(i) - 2] == '\n') para = i;
  }
  return para ? para : line ? line : last;
}

}  // namespace

Status chunk_text(const Tokenizer& tk, std::string_view text, std::size_t n, std::size_t overlap,
                  SpecialMode mode, const std::function<Status(const Chunk&)>& emit) {
  if (n == 0) return make_error("the chunk size must be at least 1 token");
  if (overlap >= n) return make_error("--overlap ({}) must be smaller than -n ({})", overlap, n);
  Boundaries b(tk, text, mode);
  bpe::EncodeScratch scratch;
  if (text.empty()) return {};
  std::size_t first = 0;  // index of the boundary where the next piece starts
  for (;;) {
    TOK_ASSIGN(std::size_t last, b.ensure(first + n + kLookahead + 1));
    std::size_t pos = b(first);
    // The n-th token boundary usually fits on its own; walk down if the
    // re-encoded piece is longer, then look a little further for a longer fit.
    std::size_t i = std::min(first + n, last);
    for (;; --i) {
      if (i == first)
        return make_error(
            "byte {}: no piece of at most {} tokens can start here (the next token, cut "
            "out on its own, encodes to more tokens): raise -n",
            pos, n);
      TOK_ASSIGN(bool ok, fits(tk, text.substr(pos, b(i) - pos), n, mode, scratch));
      if (ok) break;
    }
    std::size_t best = i;
    for (std::size_t j = i + 1; j <= last && j <= best + kLookahead; ++j) {
      TOK_ASSIGN(bool ok, fits(tk, text.substr(pos, b(j) - pos), n, mode, scratch));
      if (ok) best = j;
    }
    if (b(best) < text.size()) best = preferred_cut(b, text, first, best);
    std::size_t end = b(best);
    TOK_ASSIGN(std::size_t tokens, tk.count(text.substr(pos, end - pos), mode, scratch));
    TOK_TRY(emit(Chunk{pos, end, tokens}));
    if (end >= text.size()) break;
    std::size_t next = best;
    if (overlap > 0 && best - first > overlap) next = std::max(best - overlap, first + 1);
    first = next;
    b.drop_before(first);
  }
  return {};
}

Result<std::vector<Chunk>> chunk_text(const Tokenizer& tk, std::string_view text, std::size_t n,
                                      std::size_t overlap, SpecialMode mode) {
  std::vector<Chunk> out;
  TOK_TRY(chunk_text(tk, text, n, overlap, mode, [&](const Chunk& c) -> Status {
    out.push_back(c);
    return {};
  }));
  return out;
}

}  // namespace tok::io
