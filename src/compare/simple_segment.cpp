#include "compare/simple_segment.hpp"

#include "core/utf8.hpp"

namespace tok::compare::detail {
namespace {

struct Decoded {
  WordClass cls;
  std::uint8_t flags;  // ConjunctFlags
  std::uint32_t len;
};

// The class of the code point at s[i] (i < n) and its length; ill-formed
// UTF-8 and code points from kLimit on (Hangul syllables aside) are
// kNotSimple.
Decoded read(const SimpleClasses& t, const unsigned char* s, std::size_t i, std::size_t n) {
  utf8::Decoded d = utf8::decode_at(std::string_view(reinterpret_cast<const char*>(s), n), i);
  if (!d.valid) return {WordClass::kNotSimple, 0, 1};
  std::uint8_t bits = t.bits(d.cp);
  return {static_cast<WordClass>(bits & 0x0F), static_cast<std::uint8_t>(bits & 0xF0),
          static_cast<std::uint32_t>(d.len)};
}

bool letter_or_digit(WordClass c) { return c == WordClass::kLetter || c == WordClass::kDigit; }
// Does a segment holding c have word status?
bool wordlike(WordClass c) { return letter_or_digit(c) || c == WordClass::kHangul; }

// UAX #29 word rules WB3-WB13b restricted to simple classes: no break
// before c. raw is the code point just before c; pp, p are the two before
// it with marks skipped (WB4: the rules from WB5 on see through them);
// next() gives the first class after c that is not a mark.
template <class Next>
bool joins(WordClass pp, WordClass p, WordClass raw, WordClass c, Next&& next) {
  using W = WordClass;
  if (raw == W::kCR) return c == W::kLF;                          // WB3, WB3a
  if (raw == W::kLF || c == W::kCR || c == W::kLF) return false;  // WB3a, WB3b
  if (raw == W::kSpace && c == W::kSpace) return true;            // WB3d
  if (p == W::kHangul || c == W::kHangul) return p == c;          // ICU's Hangul runs
  if (letter_or_digit(p) && letter_or_digit(c)) return true;      // WB5, WB8-10
  bool mid_letter = c == W::kMidLetter || c == W::kMidNumLet;
  bool mid_num = c == W::kMidNum || c == W::kMidNumLet;
  if (p == W::kLetter && mid_letter && next() == W::kLetter) return true;  // WB6
  if (p == W::kDigit && mid_num && next() == W::kDigit) return true;       // WB12
  if (c == W::kLetter && pp == W::kLetter && (p == W::kMidLetter || p == W::kMidNumLet)) {
    return true;  // WB7
  }
  if (c == W::kDigit && pp == W::kDigit && (p == W::kMidNum || p == W::kMidNumLet)) {
    return true;  // WB11
  }
  if (c == W::kUnderscore && (letter_or_digit(p) || p == W::kUnderscore)) return true;  // WB13a
  if (p == W::kUnderscore && letter_or_digit(c)) return true;                           // WB13b
  return false;
}

// Where an Indic conjunct stands (CLDR's rule: LinkingConsonant ExtCccZwj*
// Virama ExtCccZwj* x LinkingConsonant), one code point at a time.
struct Conjunct {
  enum State : std::uint8_t { kNone, kConsonant, kLinked } state = kNone;
  // Does the code point with these flags join the cluster before it?
  bool next(std::uint8_t flags) {
    bool joined = false;
    if (flags & kLinkingConsonant) {
      joined = state == kLinked;
      state = kConsonant;
    } else if ((flags & kVirama) && state != kNone) {
      state = kLinked;
    } else if (!(flags & kCccOrZwj)) {
      state = kNone;
    }
    return joined;
  }
};

}  // namespace

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
  // $ExtendNumLetEx {200}" but no rule for one '_' alone), and whether it
  // ends in '_' and marks: ICU gives "a_" + U+0301 (and "__" + U+0301) no
  // word status, though "a_" and "a_" U+0301 "b" have it (found by the
  // differential tests).
  std::size_t seg = begin;
  bool seg_letters = false;
  unsigned seg_underscores = 0;
  bool seg_marked_underscore = false;
  auto close = [&](std::size_t at) {
    if ((seg_letters || seg_underscores >= 2) && !seg_marked_underscore) words.add(seg, at);
  };
  auto start_segment = [&](std::size_t at) {
    close(at);
    seg = at;
    seg_letters = false;
    seg_underscores = 0;
    seg_marked_underscore = false;
  };
  // pp, p: the classes before, marks skipped; raw: the code point just
  // before (kNotSimple: nothing, the fragment starts here).
  W pp = W::kNotSimple, p = W::kNotSimple, raw = W::kNotSimple;
  Conjunct conjunct;
  for (std::size_t i = begin;;) {
    Decoded cur = read(classes, s, i, n);
    if (cur.cls == W::kNotSimple) {
      words.clear(begin, i);
      return {false, next_safe_point(text, i), 0};
    }
    std::size_t next = i + cur.len;
    bool joined_conjunct = conjunct.next(cur.flags);
    if (cur.cls == W::kExtend) {
      // GB9, GB9a: a mark joins the cluster before it, except after a
      // control or line end (GB4) or at the start. WB4: for words it joins
      // whatever is before it, except a line end or the start, where it
      // stands alone (and then acts as Other).
      bool alone = raw == W::kNotSimple || raw == W::kCR || raw == W::kLF;
      if (p == W::kHangul && !alone) {
        // ICU then gives the Hangul run no word status ("강" U+0301, "강강"
        // U+0301 are not words): left to ICU.
        words.clear(begin, i);
        return {false, next_safe_point(text, i), 0};
      }
      if (alone || raw == W::kControl) ++r.graphemes;
      if (alone) {
        if (i > begin) start_segment(i);
        pp = p;
        p = W::kOther;
      } else if (p == W::kUnderscore) {
        seg_marked_underscore = true;
      }
    } else {
      auto ahead = [&] {
        for (std::size_t j = next; j < n;) {
          Decoded d = read(classes, s, j, n);
          if (d.cls != W::kExtend) return d.cls;
          j += d.len;
        }
        return W::kNotSimple;
      };
      if (i > begin && !joins(pp, p, raw, cur.cls, ahead)) start_segment(i);
      if (!(raw == W::kCR && cur.cls == W::kLF) && !joined_conjunct) ++r.graphemes;
      seg_letters |= wordlike(cur.cls);
      seg_underscores += cur.cls == W::kUnderscore;
      seg_marked_underscore = false;
      pp = p;
      p = cur.cls;
    }
    raw = cur.cls;
    if (next >= n || cur.cls == W::kLF ||
        (cur.cls == W::kSpace && s[next] < 0x80 && s[next] != ' ')) {
      close(next);
      r.simple = true;
      r.end = next;
      return r;
    }
    i = next;
  }
}

}  // namespace tok::compare::detail
