#include "cost/token_cut.hpp"

#include <algorithm>

namespace tok::cost {
using bpe::SpecialMode;
using bpe::Tokenizer;

namespace {

// A guaranteed piece boundary at or after `from`, or text.size().
std::size_t safe_cut(const Tokenizer& tk, std::string_view text, std::size_t from,
                     SpecialMode mode) {
  return tk.next_boundary(text, from, 1 << 20, mode);
}

Result<bool> fits(const Tokenizer& tk, std::string_view part, std::size_t n, SpecialMode mode) {
  TOK_ASSIGN(std::size_t c, tk.count(part, mode));
  return c <= n;
}

// Token starts of the first `want` tokens or more of text (or all of it):
// starts of text[0..L) for a guaranteed boundary L. Sets whole when L is the end.
Result<std::vector<std::size_t>> leading_starts(const Tokenizer& tk, std::string_view text,
                                                std::size_t want, SpecialMode mode, bool& whole) {
  std::size_t window = std::max<std::size_t>(1 << 16, want * 16);
  for (;;) {
    std::size_t end = safe_cut(tk, text, window, mode);
    TOK_ASSIGN(auto starts, token_starts(tk, text.substr(0, end), mode));
    whole = end == text.size();
    if (whole || starts.size() > want) return starts;
    window *= 2;
  }
}

}  // namespace

Result<std::vector<std::size_t>> token_starts(const Tokenizer& tk, std::string_view text,
                                              SpecialMode mode) {
  std::vector<bpe::TokenSpan> spans;
  TOK_TRY(tk.encode_spans(text, mode, spans));
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

Result<std::size_t> fit_prefix(const Tokenizer& tk, std::string_view text, std::size_t n,
                               SpecialMode mode) {
  bool whole = false;
  TOK_ASSIGN(auto starts, leading_starts(tk, text, n + kLookahead, mode, whole));
  TOK_ASSIGN(bool all, fits(tk, text, n, mode));
  if (whole && all) return text.size();
  // Candidate cuts: starts[i] = end of the first i tokens.
  std::size_t i = std::min(n, starts.size() - 1);
  for (;;) {
    TOK_ASSIGN(bool ok, fits(tk, text.substr(0, starts[i]), n, mode));
    if (ok || i == 0) break;
    --i;
  }
  std::size_t best = i;
  for (std::size_t j = i + 1; j < starts.size() && j <= best + kLookahead; ++j) {
    TOK_ASSIGN(bool ok, fits(tk, text.substr(0, starts[j]), n, mode));
    if (ok) best = j;
  }
  return starts[best];
}

Result<std::size_t> fit_suffix(const Tokenizer& tk, std::string_view text, std::size_t n,
                               SpecialMode mode) {
  TOK_ASSIGN(bool all, fits(tk, text, n, mode));
  if (all) return std::size_t{0};
  // Encode only a tail that starts at a guaranteed boundary and holds > n tokens.
  std::size_t window = std::max<std::size_t>(1 << 16, (n + kLookahead) * 16);
  std::size_t base = 0;
  std::vector<std::size_t> starts;
  for (;;) {
    std::size_t from = text.size() > window ? text.size() - window : 0;
    base = from == 0 ? 0 : safe_cut(tk, text, from, mode);
    if (base >= text.size()) base = 0;
    TOK_ASSIGN(starts, token_starts(tk, text.substr(base), mode));
    if (base == 0 || starts.size() > n + kLookahead) break;
    window *= 2;
  }
  std::string_view tail = text.substr(base);
  // Suffix from starts[i] holds starts.size() - i tokens originally.
  std::size_t t = starts.size();
  std::size_t i = t > n ? t - n : 0;
  for (; i < t; ++i) {
    TOK_ASSIGN(bool ok, fits(tk, tail.substr(starts[i]), n, mode));
    if (ok) break;
  }
  if (i == t) return text.size();
  std::size_t best = i;
  for (std::size_t k = 1; k <= kLookahead && k <= best; ++k) {
    std::size_t j = best - k;
    TOK_ASSIGN(bool ok, fits(tk, tail.substr(starts[j]), n, mode));
    if (ok) {
      best = j;
      k = 0;
    }
  }
  return base + starts[best];
}

Result<std::vector<Chunk>> chunk_text(const Tokenizer& tk, std::string_view text, std::size_t n,
                                      std::size_t overlap, SpecialMode mode) {
  if (n == 0) return make_error("the chunk size must be at least 1 token");
  if (overlap >= n) return make_error("--overlap ({}) must be smaller than -n ({})", overlap, n);
  std::vector<Chunk> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::string_view rest = text.substr(pos);
    TOK_ASSIGN(std::size_t end, fit_prefix(tk, rest, n, mode));
    if (end == 0) return make_error("byte {}: a single token does not fit in {} tokens", pos, n);
    if (end < rest.size()) {
      bool whole = false;
      TOK_ASSIGN(auto starts, leading_starts(tk, rest.substr(0, end), n, mode, whole));
      // A paragraph break in the second half, else a line break in the last quarter.
      std::size_t half = end - end / 2, quarter = end - end / 4;
      std::size_t para = 0, line = 0;
      for (std::size_t b : starts) {
        if (b < half || b == 0) continue;
        if (b >= quarter && rest[b - 1] == '\n') line = b;
        if (b >= 2 && rest[b - 1] == '\n' && rest[b - 2] == '\n') para = b;
      }
      if (para) end = para;
      else if (line) end = line;
    }
    TOK_ASSIGN(std::size_t tokens, tk.count(rest.substr(0, end), mode));
    out.push_back({pos, pos + end, tokens});
    if (pos + end >= text.size()) break;
    std::size_t next = end;
    if (overlap > 0) {
      TOK_ASSIGN(auto starts, token_starts(tk, rest.substr(0, end), mode));
      if (starts.size() > overlap) next = std::max<std::size_t>(starts[starts.size() - overlap], 1);
    }
    pos += next;
  }
  return out;
}

}  // namespace tok::cost
