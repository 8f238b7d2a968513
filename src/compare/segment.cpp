#include "compare/segment.hpp"

#include <unicode/ubrk.h>
#include <unicode/utext.h>

#include "compare/ascii_segment.hpp"
#include "compare/simple_segment.hpp"

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

std::size_t Segmenter::count_graphemes_icu(std::string_view text) {
  if (text.empty() || !s_->attach(s_->chars, text)) return 0;
  std::size_t n = 0;
  ubrk_first(s_->chars);
  while (ubrk_next(s_->chars) != UBRK_DONE) ++n;
  return n;
}

void Segmenter::word_spans_icu(std::string_view text, std::vector<ByteSpan>& out) {
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

std::size_t Segmenter::segment_icu(std::string_view text, std::size_t begin, std::size_t end,
                                   WordBits& words) {
  std::string_view part = text.substr(begin, end - begin);
  std::size_t graphemes = count_graphemes_icu(part);
  if (part.empty() || !s_->attach(s_->words, part)) return graphemes;
  int32_t b = ubrk_first(s_->words);
  for (int32_t e = ubrk_next(s_->words); e != UBRK_DONE; e = ubrk_next(s_->words)) {
    if (ubrk_getRuleStatus(s_->words) != UBRK_WORD_NONE) {
      words.add(begin + static_cast<std::size_t>(b), begin + static_cast<std::size_t>(e));
    }
    b = e;
  }
  return graphemes;
}

namespace {
// Shorter ASCII runs go through the fragment scan: the kernel's setup costs
// about as much as scanning a few words.
constexpr std::size_t kMinAsciiRun = 32;
}  // namespace

std::size_t Segmenter::segment(std::string_view text, WordBits& words) {
  const detail::SimpleClasses& classes = detail::SimpleClasses::get();
  const bool ascii_kernel = detail::ascii_kernel_matches_icu();
  words.reset(text.size());
  std::size_t graphemes = 0;
  std::size_t pos = 0;                             // always a safe point
  std::size_t icu_begin = std::string_view::npos;  // start of pending non-simple fragments
  auto flush_icu = [&] {
    if (icu_begin == std::string_view::npos) return;
    graphemes += segment_icu(text, icu_begin, pos, words);
    icu_begin = std::string_view::npos;
  };
  // Where the ASCII kernel last looked: a run found too short is not looked
  // at again for every fragment inside it.
  std::size_t ascii_checked = 0;
  while (pos < text.size()) {
    if (ascii_kernel && pos >= ascii_checked) {
      std::size_t x = detail::simple_ascii_end(text, pos);
      std::size_t run_end = x == text.size() ? x : detail::prev_safe_point(text, pos, x);
      ascii_checked = x;
      if (run_end - pos >= kMinAsciiRun) {
        flush_icu();
        graphemes += detail::segment_ascii(text, pos, run_end, words);
        pos = run_end;
        continue;
      }
    }
    detail::FragmentScan f = detail::scan_fragment(text, pos, classes, words);
    if (!f.simple) {
      if (icu_begin == std::string_view::npos) icu_begin = pos;
      pos = f.end;
      continue;
    }
    flush_icu();  // words are bits by position: ICU's may come after the fragment's
    graphemes += f.graphemes;
    pos = f.end;
  }
  flush_icu();
  return graphemes;
}

std::size_t Segmenter::segment(std::string_view text, std::vector<ByteSpan>& words) {
  WordBits bits;
  std::size_t graphemes = segment(text, bits);
  bits.spans(words);
  return graphemes;
}

std::size_t Segmenter::count_graphemes(std::string_view text) {
  WordBits bits;
  return segment(text, bits);
}

void Segmenter::word_spans(std::string_view text, std::vector<ByteSpan>& out) {
  segment(text, out);
}

std::size_t Segmenter::count_words(std::string_view text) {
  WordBits bits;
  segment(text, bits);
  return bits.count();
}

}  // namespace tok::compare
