#include "compare/simple_segment.hpp"

#include <unicode/uchar.h>
#include <unicode/uscript.h>

namespace tok::compare::detail {
namespace {

// ICU 72's word.txt follows CLDR 42 in two tailorings of UAX #29: ':' (and
// U+FE55, U+FF1A, not below kLimit) is not MidLetter ("a:b" is two words),
// and '@' is ALetter ("rranjan@redhat.com" is one word). The differential
// tests fail if another ICU disagrees.
constexpr bool kColonIsMidLetter = false;

bool dictionary_or_cjk(UChar32 c) {
  if (u_getIntPropertyValue(c, UCHAR_LINE_BREAK) == U_LB_COMPLEX_CONTEXT) return true;
  if (u_hasBinaryProperty(c, UCHAR_IDEOGRAPHIC)) return true;
  UErrorCode st = U_ZERO_ERROR;
  UScriptCode sc = uscript_getScript(c, &st);
  return U_FAILURE(st) || sc == USCRIPT_HAN || sc == USCRIPT_HIRAGANA ||
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
  int gcb = u_getIntPropertyValue(c, UCHAR_GRAPHEME_CLUSTER_BREAK);
  if (gcb != U_GCB_OTHER && gcb != U_GCB_CONTROL) return WordClass::kNotSimple;
  if (u_hasBinaryProperty(c, UCHAR_EXTENDED_PICTOGRAPHIC) || dictionary_or_cjk(c)) {
    return WordClass::kNotSimple;
  }
  switch (u_getIntPropertyValue(c, UCHAR_WORD_BREAK)) {
    case U_WB_ALETTER: return WordClass::kLetter;
    case U_WB_NUMERIC: return WordClass::kDigit;
    case U_WB_MIDLETTER: return WordClass::kMidLetter;
    case U_WB_MIDNUMLET:
    case U_WB_SINGLE_QUOTE: return WordClass::kMidNumLet;
    case U_WB_MIDNUM: return WordClass::kMidNum;
    // Double_Quote only joins next to Hebrew letters, which are not simple
    // and so never share a fragment with a counted one.
    case U_WB_DOUBLE_QUOTE:
    case U_WB_OTHER: return WordClass::kOther;
    // Extend, Format, ZWJ, Katakana, Hebrew_Letter, Newline, RI, other
    // ExtendNumLet and WSegSpace: ICU.
    default: return WordClass::kNotSimple;
  }
}

struct Decoded {
  WordClass cls;
  std::uint32_t len;
};

bool is_cont(unsigned char b) { return (b & 0xC0) == 0x80; }

// The class of the code point at s[i] (i < n) and its length; ill-formed
// UTF-8 and code points from U+3000 on are kNotSimple.
Decoded read(const SimpleClasses& t, const unsigned char* s, std::size_t i, std::size_t n) {
  unsigned char b = s[i];
  if (b < 0x80) return {t.of(b), 1};
  if (b >= 0xC2 && b <= 0xDF && i + 1 < n && is_cont(s[i + 1])) {
    return {t.of(static_cast<char32_t>(((b & 0x1F) << 6) | (s[i + 1] & 0x3F))), 2};
  }
  if (b >= 0xE0 && b <= 0xE2 && i + 2 < n && is_cont(s[i + 1]) && is_cont(s[i + 2])) {
    char32_t c = static_cast<char32_t>(((b & 0x0F) << 12) | ((s[i + 1] & 0x3F) << 6) |
                                       (s[i + 2] & 0x3F));
    if (c >= 0x800) return {t.of(c), 3};  // else overlong
  }
  return {WordClass::kNotSimple, 1};
}

bool letter_or_digit(WordClass c) { return c == WordClass::kLetter || c == WordClass::kDigit; }

// UAX #29 word rules WB3-WB13b restricted to simple classes: no break
// between p and c, given the code points before (pp) and after (n).
bool joins(WordClass pp, WordClass p, WordClass c, WordClass n) {
  using W = WordClass;
  if (p == W::kCR) return c == W::kLF;                                // WB3, WB3a
  if (p == W::kLF || c == W::kCR || c == W::kLF) return false;         // WB3a, WB3b
  if (p == W::kSpace && c == W::kSpace) return true;                   // WB3d
  if (letter_or_digit(p) && letter_or_digit(c)) return true;           // WB5, WB8-10
  bool mid_letter = c == W::kMidLetter || c == W::kMidNumLet;
  bool mid_num = c == W::kMidNum || c == W::kMidNumLet;
  if (p == W::kLetter && mid_letter && n == W::kLetter) return true;   // WB6
  if (p == W::kDigit && mid_num && n == W::kDigit) return true;        // WB12
  if (c == W::kLetter && pp == W::kLetter && (p == W::kMidLetter || p == W::kMidNumLet)) {
    return true;  // WB7
  }
  if (c == W::kDigit && pp == W::kDigit && (p == W::kMidNum || p == W::kMidNumLet)) {
    return true;  // WB11
  }
  if (c == W::kUnderscore && (letter_or_digit(p) || p == W::kUnderscore)) return true;  // WB13a
  if (p == W::kUnderscore && letter_or_digit(c)) return true;                          // WB13b
  return false;
}

}  // namespace

const SimpleClasses& SimpleClasses::get() {
  static const SimpleClasses table;
  return table;
}

SimpleClasses::SimpleClasses() : table_(kLimit) {
  for (char32_t c = 0; c < kLimit; ++c) {
    table_[c] = static_cast<std::uint8_t>(classify(static_cast<UChar32>(c)));
  }
}

bool is_safe_point(std::string_view text, std::size_t q) {
  if (q == 0 || q >= text.size()) return true;
  char a = text[q - 1];
  auto b = static_cast<unsigned char>(text[q]);
  return a == '\n' || (a == ' ' && b < 0x80 && b != ' ');
}

std::size_t next_safe_point(std::string_view text, std::size_t from) {
  for (std::size_t j = from; j < text.size(); ++j) {
    if ((text[j] == '\n' || text[j] == ' ') && is_safe_point(text, j + 1)) return j + 1;
  }
  return text.size();
}

std::size_t prev_safe_point(std::string_view text, std::size_t from, std::size_t to) {
  for (std::size_t q = to; q > from; --q) {
    if (is_safe_point(text, q)) return q;
  }
  return from;
}

FragmentScan scan_fragment(std::string_view text, std::size_t begin, const SimpleClasses& classes,
                           WordBits& words) {
  using W = WordClass;
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  FragmentScan r;
  if (begin >= n) return {true, n, 0};
  // The current segment: where it starts, whether ICU tags it as a word (a
  // letter or digit, or two or more '_': word.txt has "$ExtendNumLetEx
  // $ExtendNumLetEx {200}" but no rule for one '_' alone).
  std::size_t seg = begin;
  bool seg_letters = false;
  unsigned seg_underscores = 0;
  auto close = [&](std::size_t at) {
    if (seg_letters || seg_underscores >= 2) words.add(seg, at);
  };
  W pp = W::kNotSimple, p = W::kNotSimple;  // kNotSimple: nothing before
  std::size_t i = begin;
  Decoded cur = read(classes, s, i, n);
  for (;;) {
    if (cur.cls == W::kNotSimple) {
      words.clear(begin, i);
      return {false, next_safe_point(text, i), 0};
    }
    std::size_t next = i + cur.len;
    Decoded ahead = next < n ? read(classes, s, next, n) : Decoded{W::kNotSimple, 0};
    if (i > begin && !joins(pp, p, cur.cls, ahead.cls)) {
      close(i);
      seg = i;
      seg_letters = false;
      seg_underscores = 0;
    }
    if (!(p == W::kCR && cur.cls == W::kLF)) ++r.graphemes;
    seg_letters |= letter_or_digit(cur.cls);
    seg_underscores += cur.cls == W::kUnderscore;
    if (next >= n || cur.cls == W::kLF || (cur.cls == W::kSpace && s[next] < 0x80 && s[next] != ' ')) {
      close(next);
      r.simple = true;
      r.end = next;
      return r;
    }
    pp = p;
    p = cur.cls;
    cur = ahead;
    i = next;
  }
}

}  // namespace tok::compare::detail
