#include "compare/simple_classes.hpp"

#include <unicode/ubrk.h>
#include <unicode/uchar.h>
#include <unicode/uscript.h>

namespace tok::compare::detail {
namespace {

// ICU 72's word.txt follows CLDR 42 in two tailorings of UAX #29: ':' (and
// U+FE55, U+FF1A, not below kLimit) is not MidLetter ("a:b" is two words),
// and '@' is ALetter ("rranjan@redhat.com" is one word). The differential
// tests fail if another ICU disagrees.
constexpr bool kColonIsMidLetter = false;

UScriptCode script_of(UChar32 c) {
  UErrorCode st = U_ZERO_ERROR;
  UScriptCode sc = uscript_getScript(c, &st);
  return U_FAILURE(st) ? USCRIPT_INVALID_CODE : sc;
}

bool dictionary_or_cjk(UChar32 c) {
  if (u_getIntPropertyValue(c, UCHAR_LINE_BREAK) == U_LB_COMPLEX_CONTEXT) return true;
  if (u_hasBinaryProperty(c, UCHAR_IDEOGRAPHIC)) return true;
  UScriptCode sc = script_of(c);
  return sc == USCRIPT_INVALID_CODE || sc == USCRIPT_HAN || sc == USCRIPT_HIRAGANA ||
         sc == USCRIPT_KATAKANA || sc == USCRIPT_HANGUL;
}

WordClass classify(UChar32 c) {
  switch (c) {
    case '\r': return WordClass::kCR;
    case '\n': return WordClass::kLF;
    case ' ': return WordClass::kSpace;
    case '_': return WordClass::kUnderscore;
    case '@': return WordClass::kLetter;
    case ':': return kColonIsMidLetter ? WordClass::kMidLetter : WordClass::kOther;
    default: break;
  }
  if (U_IS_SURROGATE(c)) return WordClass::kNotSimple;
  if (u_hasBinaryProperty(c, UCHAR_EXTENDED_PICTOGRAPHIC) || dictionary_or_cjk(c)) {
    return WordClass::kNotSimple;
  }
  int gcb = u_getIntPropertyValue(c, UCHAR_GRAPHEME_CLUSTER_BREAK);
  int wb = u_getIntPropertyValue(c, UCHAR_WORD_BREAK);
  if (gcb == U_GCB_EXTEND || gcb == U_GCB_SPACING_MARK || gcb == U_GCB_ZWJ) {
    return wb == U_WB_EXTEND || wb == U_WB_ZWJ ? WordClass::kExtend : WordClass::kNotSimple;
  }
  if (gcb != U_GCB_OTHER && gcb != U_GCB_CONTROL) return WordClass::kNotSimple;
  switch (wb) {
    case U_WB_ALETTER: return WordClass::kLetter;
    case U_WB_NUMERIC: return WordClass::kDigit;
    case U_WB_MIDLETTER: return WordClass::kMidLetter;
    case U_WB_MIDNUMLET:
    case U_WB_SINGLE_QUOTE: return WordClass::kMidNumLet;
    case U_WB_MIDNUM: return WordClass::kMidNum;
    // Double_Quote only joins next to Hebrew letters, which are not simple
    // and so never share a fragment with a counted one.
    case U_WB_DOUBLE_QUOTE:
    case U_WB_OTHER: return gcb == U_GCB_CONTROL ? WordClass::kControl : WordClass::kOther;
    // Format, Katakana, Hebrew_Letter, Newline, RI, other ExtendNumLet and
    // WSegSpace: ICU.
    default: return WordClass::kNotSimple;
  }
}

// Does this ICU keep "क्ष" (ka, virama, ssa) together? Then its char.txt has
// the conjunct rule (ICU 72 has it from CLDR; plain UAX #29 before Unicode
// 15.1 breaks after the virama).
bool icu_joins_conjuncts() {
  UErrorCode st = U_ZERO_ERROR;
  UBreakIterator* bi = ubrk_open(UBRK_CHARACTER, "", nullptr, 0, &st);
  if (U_FAILURE(st)) return false;
  const UChar kssa[] = {0x0915, 0x094D, 0x0937};
  ubrk_setText(bi, kssa, 3, &st);
  int breaks = 0;
  if (U_SUCCESS(st)) {
    ubrk_first(bi);
    while (ubrk_next(bi) != UBRK_DONE) ++breaks;
  }
  ubrk_close(bi);
  return breaks == 1;
}

// Are the Hangul syllables what kHangul says: Grapheme_Cluster_Break LV or
// LVT, and, for ICU's word iterator, "강강" one word and "강a" two?
bool icu_hangul_as_runs() {
  for (UChar32 c = SimpleClasses::kHangulFirst;
       c <= static_cast<UChar32>(SimpleClasses::kHangulLast); ++c) {
    int gcb = u_getIntPropertyValue(c, UCHAR_GRAPHEME_CLUSTER_BREAK);
    if (gcb != U_GCB_LV && gcb != U_GCB_LVT) return false;
  }
  UErrorCode st = U_ZERO_ERROR;
  UBreakIterator* bi = ubrk_open(UBRK_WORD, "", nullptr, 0, &st);
  if (U_FAILURE(st)) return false;
  auto segments = [&](const UChar* t, int32_t n) {
    ubrk_setText(bi, t, n, &st);
    int k = 0;
    ubrk_first(bi);
    while (U_SUCCESS(st) && ubrk_next(bi) != UBRK_DONE) ++k;
    return k;
  };
  const UChar run[] = {0xAC15, 0xAC15}, mixed[] = {0xAC15, 'a'};
  bool ok = segments(run, 2) == 1 && segments(mixed, 2) == 2 && U_SUCCESS(st);
  ubrk_close(bi);
  return ok;
}

bool linking_script(UChar32 c) {
  switch (script_of(c)) {
    case USCRIPT_BENGALI:
    case USCRIPT_DEVANAGARI:
    case USCRIPT_GUJARATI:
    case USCRIPT_ORIYA:
    case USCRIPT_TELUGU:
    case USCRIPT_MALAYALAM: return true;
    default: return false;
  }
}

std::uint8_t conjunct_flags(UChar32 c, WordClass cls) {
  std::uint8_t f = 0;
  int insc = u_getIntPropertyValue(c, UCHAR_INDIC_SYLLABIC_CATEGORY);
  if (linking_script(c) && insc == U_INSC_CONSONANT) f |= kLinkingConsonant;
  if (linking_script(c) && insc == U_INSC_VIRAMA) f |= kVirama;
  bool extend = u_getIntPropertyValue(c, UCHAR_GRAPHEME_CLUSTER_BREAK) == U_GCB_EXTEND;
  if ((extend && u_getCombiningClass(c) != 0) || c == 0x200D) f |= kCccOrZwj;
  // A flagged code point the fast path cannot take stays with ICU.
  if ((f & kLinkingConsonant) && cls != WordClass::kLetter) return 0xFF;
  if ((f & (kVirama | kCccOrZwj)) && cls != WordClass::kExtend) return 0xFF;
  return f;
}

}  // namespace

const SimpleClasses& SimpleClasses::get() {
  static const SimpleClasses table;
  return table;
}

SimpleClasses::SimpleClasses() : table_(kLimit) {
  hangul_ =
      static_cast<std::uint8_t>(icu_hangul_as_runs() ? WordClass::kHangul : WordClass::kNotSimple);
  const bool conjuncts = icu_joins_conjuncts();
  for (char32_t c = 0; c < kLimit; ++c) {
    auto u = static_cast<UChar32>(c);
    WordClass cls = classify(u);
    std::uint8_t flags = 0;
    if (cls != WordClass::kNotSimple && conjuncts) {
      flags = conjunct_flags(u, cls);
      if (flags == 0xFF) cls = WordClass::kNotSimple, flags = 0;
    }
    table_[c] = static_cast<std::uint8_t>(static_cast<std::uint8_t>(cls) | flags);
  }
}

}  // namespace tok::compare::detail
