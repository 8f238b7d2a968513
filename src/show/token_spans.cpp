#include "show/token_spans.hpp"

namespace tok::show {

Result<Tokenization> build_spans(const bpe::Tokenizer& tk, std::string_view input,
                                 bpe::SpecialMode mode) {
  Tokenization t;
  t.encoding = tk.name();
  t.transformed = tk.has_transform();
  t.text = t.transformed ? tk.apply_transform(input) : std::string(input);
  // encode() applies the transform itself, so it gets the original input.
  TOK_ASSIGN(std::vector<bpe::TokenId> ids, tk.encode(input, mode));
  t.spans.reserve(ids.size());
  std::size_t off = 0;
  for (bpe::TokenId id : ids) {
    std::string_view bytes = tk.token_bytes(id);
    // Every token's bytes are the next bytes of the text for byte-level
    // vocabularies; a format whose tokens are not (say, a normalizer that
    // does more than the transform reports) cannot be drawn faithfully.
    if (std::string_view(t.text).substr(off, bytes.size()) != bytes) {
      return make_error("token {} (id {}) of {} is not the text at byte {}; this vocabulary's "
                        "tokens cannot be placed in the text",
                        t.spans.size(), id, t.encoding, off);
    }
    t.spans.push_back({id, off, bytes.size(), tk.is_special(id)});
    off += bytes.size();
  }
  if (off != t.text.size()) {
    return make_error("the tokens of {} cover {} of {} bytes of the text", t.encoding, off,
                      t.text.size());
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
