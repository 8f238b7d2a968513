#include "compare/segment.hpp"

#include <unicode/ubrk.h>
#include <unicode/utext.h>

namespace tok::compare {

struct Segmenter::State {
  UBreakIterator* chars = nullptr;
  UBreakIterator* words = nullptr;
  UText* text = nullptr;
  ~State() {
    if (chars) ubrk_close(chars);
    if (words) ubrk_close(words);
    if (text) utext_close(text);
  }
  // Points `bi` at `t`; false if ICU refuses (only for absurd sizes).
  bool attach(UBreakIterator* bi, std::string_view t) {
    UErrorCode st = U_ZERO_ERROR;
    text = utext_openUTF8(text, t.data(), static_cast<int64_t>(t.size()), &st);
    if (U_FAILURE(st)) return false;
    ubrk_setUText(bi, text, &st);
    return U_SUCCESS(st);
  }
};

Result<Segmenter> Segmenter::create() {
  auto s = std::make_unique<State>();
  UErrorCode st = U_ZERO_ERROR;
  // The root locale: the rules and dictionaries do not depend on it.
  s->chars = ubrk_open(UBRK_CHARACTER, "", nullptr, 0, &st);
  if (U_FAILURE(st)) return make_error("ICU character break iterator: {}", u_errorName(st));
  s->words = ubrk_open(UBRK_WORD, "", nullptr, 0, &st);
  if (U_FAILURE(st)) return make_error("ICU word break iterator: {}", u_errorName(st));
  return Segmenter(std::move(s));
}

Segmenter::Segmenter(std::unique_ptr<State> s) : s_(std::move(s)) {}
Segmenter::Segmenter(Segmenter&&) noexcept = default;
Segmenter& Segmenter::operator=(Segmenter&&) noexcept = default;
Segmenter::~Segmenter() = default;

std::size_t Segmenter::count_graphemes(std::string_view text) {
  if (text.empty() || !s_->attach(s_->chars, text)) return 0;
  std::size_t n = 0;
  ubrk_first(s_->chars);
  while (ubrk_next(s_->chars) != UBRK_DONE) ++n;
  return n;
}

void Segmenter::word_spans(std::string_view text, std::vector<ByteSpan>& out) {
  if (text.empty() || !s_->attach(s_->words, text)) return;
  int32_t begin = ubrk_first(s_->words);
  for (int32_t end = ubrk_next(s_->words); end != UBRK_DONE; end = ubrk_next(s_->words)) {
    // The status of the segment that ends at the current boundary.
    if (ubrk_getRuleStatus(s_->words) != UBRK_WORD_NONE) {
      out.push_back({static_cast<std::size_t>(begin), static_cast<std::size_t>(end)});
    }
    begin = end;
  }
}

std::size_t Segmenter::count_words(std::string_view text) {
  if (text.empty() || !s_->attach(s_->words, text)) return 0;
  std::size_t n = 0;
  ubrk_first(s_->words);
  while (ubrk_next(s_->words) != UBRK_DONE) {
    if (ubrk_getRuleStatus(s_->words) != UBRK_WORD_NONE) ++n;
  }
  return n;
}

}  // namespace tok::compare
