#include "show/token_spans.hpp"

namespace tok::show {

Result<Tokenization> build_spans(const bpe::Tokenizer& tk, std::string_view input,
                                 bpe::SpecialMode mode) {
  Tokenization t;
  t.encoding = tk.name();
  t.text = std::string(input);
  // The spans index the input, also where the vocabulary rewrites the text
  // first (the alignment maps them back).
  std::vector<bpe::TokenSpan> spans;
  TOK_TRY(tk.encode_spans(input, mode, spans));
  t.spans.reserve(spans.size());
  std::size_t off = 0;
  for (const bpe::TokenSpan& s : spans) {
    if (s.begin != off || s.end < s.begin || s.end > input.size()) {
      return make_error(
          "token {} (id {}) of {} does not start at byte {} where the previous "
          "one ends; this vocabulary's tokens cannot be placed in the text",
          t.spans.size(), s.id, t.encoding, off);
    }
    t.spans.push_back({s.id, s.begin, s.end - s.begin, tk.is_special(s.id)});
    off = s.end;
  }
  if (off != input.size()) {
    return make_error("the tokens of {} cover {} of {} bytes of the text", t.encoding, off,
                      input.size());
  }
  return t;
}

std::size_t spans_within(const std::vector<Span>& spans, std::size_t limit) {
  std::size_t lo = 0, hi = spans.size();
  while (lo < hi) {
    std::size_t mid = (lo + hi) / 2;
    if (spans[mid].offset + spans[mid].length <= limit) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

}  // namespace tok::show

namespace tok::show {

std::size_t common_end(const Tokenization& a, const Tokenization& b, std::size_t limit) {
  std::size_t ia = spans_within(a.spans, limit), ib = spans_within(b.spans, limit);
  auto end_of = [](const std::vector<Span>& s, std::size_t n) {
    return n == 0 ? std::size_t{0} : s[n - 1].offset + s[n - 1].length;
  };
  // Walk back from the last boundaries under the limit until they meet.
  while (ia > 0 && ib > 0) {
    std::size_t ea = end_of(a.spans, ia), eb = end_of(b.spans, ib);
    if (ea == eb) return ea;
    if (ea > eb) {
      --ia;
    } else {
      --ib;
    }
  }
  return 0;
}

}  // namespace tok::show
