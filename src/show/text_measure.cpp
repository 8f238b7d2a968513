#include "show/text_measure.hpp"

#include <unicode/ubrk.h>
#include <unicode/utext.h>

#include <memory>

namespace tok::show {
namespace {

struct BreakCloser {
  void operator()(UBreakIterator* b) const { ubrk_close(b); }
};
struct TextCloser {
  void operator()(UText* t) const { utext_close(t); }
};
using BreakPtr = std::unique_ptr<UBreakIterator, BreakCloser>;
using TextPtr = std::unique_ptr<UText, TextCloser>;

// Walks the boundaries of `kind`; calls f(rule_status) once per segment.
template <class F>
Status for_each_segment(UBreakIteratorType kind, UText* text, F&& f) {
  UErrorCode err = U_ZERO_ERROR;
  BreakPtr it(ubrk_open(kind, "en", nullptr, 0, &err));
  if (U_FAILURE(err)) return make_error("ICU break iterator: {}", u_errorName(err));
  ubrk_setUText(it.get(), text, &err);
  if (U_FAILURE(err)) return make_error("ICU break iterator: {}", u_errorName(err));
  ubrk_first(it.get());
  while (ubrk_next(it.get()) != UBRK_DONE) f(ubrk_getRuleStatus(it.get()));
  return {};
}

}  // namespace

Result<TextMeasure> measure_text(std::string_view utf8) {
  TextMeasure m;
  m.bytes = utf8.size();
  if (utf8.empty()) return m;
  UErrorCode err = U_ZERO_ERROR;
  TextPtr text(utext_openUTF8(nullptr, utf8.data(), static_cast<int64_t>(utf8.size()), &err));
  if (U_FAILURE(err)) return make_error("ICU text: {}", u_errorName(err));
  TOK_TRY(for_each_segment(UBRK_CHARACTER, text.get(), [&](int32_t) { ++m.graphemes; }));
  // Word segments with status UBRK_WORD_NONE are spaces and punctuation.
  TOK_TRY(for_each_segment(UBRK_WORD, text.get(), [&](int32_t status) {
    if (status >= UBRK_WORD_NONE_LIMIT) ++m.words;
  }));
  return m;
}

}  // namespace tok::show
