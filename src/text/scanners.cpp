// The named split patterns as hand-written scanners.
//
// A backtracking regex tries the alternatives left to right at a position and
// takes the first that matches; for each alternative it takes the first
// success of its greedy quantifiers. The code below follows the alternatives
// in order; where an alternative could backtrack, a comment says why the
// chosen end is the one the regex reaches first. Lookaheads and `$` see the
// end of `text` (one valid UTF-8 run) as the end of input.
#include "text/scanners.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/cpu_features.hpp"
#include "core/utf8.hpp"
#include "text/cl100k_machine.hpp"
#include "text/o200k_machine.hpp"
#include "text/piece_machine.hpp"
#include "text/unicode_props.hpp"

namespace tok::text {
namespace {

constexpr std::size_t kNone = static_cast<std::size_t>(-1);
constexpr std::uint8_t kLNS = kPropLetter | kPropNumber | kPropSpace;

// `text` as bytes, with property lookup of the character at a position.
struct Cursor {
  const unsigned char* s;
  std::size_t n;
  const UnicodeProps& props;

  explicit Cursor(std::string_view t)
      : s(reinterpret_cast<const unsigned char*>(t.data())),
        n(t.size()),
        props(UnicodeProps::get()) {}

  std::uint8_t at(std::size_t i, std::size_t& len) const {
    unsigned char b = s[i];
    if (b < 0x80) {
      len = 1;
      return kAsciiProps.bits[b];
    }
    return props(utf8::decode(s + i, len));
  }

  // End of the run of characters from i whose properties have a bit of mask.
  std::size_t skip_any(std::size_t i, std::uint8_t mask) const {
    while (i < n) {
      if (s[i] < 0x80) {
        if (!(kAsciiProps.bits[s[i]] & mask)) break;
        ++i;
        continue;
      }
      std::size_t len;
      if (!(at(i, len) & mask)) break;
      i += len;
    }
    return i;
  }

  // End of the run of [^\s\p{L}\p{N}] from i.
  std::size_t skip_other(std::size_t i) const {
    while (i < n) {
      std::size_t len;
      if (at(i, len) & kLNS) break;
      i += len;
    }
    return i;
  }

  bool is_newline(std::size_t i) const { return i < n && (s[i] == '\r' || s[i] == '\n'); }
};

// The ASCII letter classes of the fast paths: kPropLetter (A-Z a-z),
// kPropUpperish (A-Z), kPropLowerish (a-z).
template <std::uint8_t kMask>
bool in_ascii_class(unsigned char b) {
  if constexpr (kMask == kPropLetter) return static_cast<unsigned char>((b | 0x20) - 'a') < 26;
  if constexpr (kMask == kPropUpperish) return static_cast<unsigned char>(b - 'A') < 26;
  return static_cast<unsigned char>(b - 'a') < 26;
}

#if defined(__SSE2__)
// Bit k set when p[k] (k < 16) is in the class: a byte b is in [lo, lo + 26)
// when b + (0x80 - lo), as a signed byte, is below -128 + 26. No byte >= 0x80
// passes (for letters, b | 0x20 maps 0xC1 to 0xE1, which also fails).
template <std::uint8_t kMask>
unsigned ascii_class_bits16(const unsigned char* p) {
  __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  char lo = kMask == kPropUpperish ? 'A' : 'a';
  if constexpr (kMask == kPropLetter) v = _mm_or_si128(v, _mm_set1_epi8(0x20));
  __m128i t = _mm_add_epi8(v, _mm_set1_epi8(static_cast<char>(0x80 - lo)));
  __m128i in = _mm_cmplt_epi8(t, _mm_set1_epi8(static_cast<char>(-128 + 26)));
  return static_cast<unsigned>(_mm_movemask_epi8(in));
}
#endif

// End of the ASCII letters from i in the class kMask, or kNone when the run
// is followed by a non-ASCII byte (which the general path must classify).
// ASCII words are most pieces of most text; this is the fast path. Sixteen
// bytes at a time: the end comes from a bit scan, not from a loop exit that
// mispredicts once per word.
template <std::uint8_t kMask>
std::size_t ascii_word_end(const Cursor& c, std::size_t i) {
#if defined(__SSE2__)
  while (i + 16 <= c.n) {
    unsigned out = ~ascii_class_bits16<kMask>(c.s + i) & 0xFFFFu;
    if (out) {
      i += static_cast<std::size_t>(__builtin_ctz(out));
      return c.s[i] >= 0x80 ? kNone : i;
    }
    i += 16;
  }
#endif
  while (i < c.n && in_ascii_class<kMask>(c.s[i])) ++i;
  return i < c.n && c.s[i] >= 0x80 ? kNone : i;
}

bool is_ascii_letter(unsigned char b) { return b < 0x80 && (kAsciiProps.bits[b] & kPropLetter); }

// A whitespace run [start, end): where its last character starts and where
// its last \r or \n ends (0 if it has none).
struct WsRun {
  std::size_t end;
  std::size_t last_start;
  std::size_t last_newline_end;
};

WsRun whitespace_run(const Cursor& c, std::size_t i) {
  WsRun r{i, i, 0};
  while (r.end < c.n) {
    unsigned char b = c.s[r.end];
#if defined(__SSE2__)
    // Indentation: a run of spaces, sixteen bytes at a time.
    if (b == ' ' && r.end + 16 <= c.n) {
      unsigned k;
      do {
        __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(c.s + r.end));
        __m128i eq = _mm_cmpeq_epi8(v, _mm_set1_epi8(' '));
        unsigned spaces = static_cast<unsigned>(_mm_movemask_epi8(eq));
        k = static_cast<unsigned>(__builtin_ctz(~spaces));  // >= 1: c.s[r.end] is a space
        r.end += k;
      } while (k == 16 && r.end + 16 <= c.n);
      r.last_start = r.end - 1;
      continue;
    }
#endif
    std::size_t len = 1;
    if (b < 0x80 ? !(kAsciiProps.bits[b] & kPropSpace) : !(c.at(r.end, len) & kPropSpace)) break;
    r.last_start = r.end;
    if (b == '\r' || b == '\n') r.last_newline_end = r.end + 1;
    r.end += len;
  }
  return r;
}

// \s+(?!\S)|\s+ on the run starting at i: the lookahead fails only before a
// non-space, so \s+ gives back exactly one character, unless that would leave
// nothing, in which case \s+ takes the single character.
std::size_t whitespace_tail(const Cursor& c, const WsRun& r, std::size_t i) {
  if (r.end == c.n) return r.end;
  return r.last_start > i ? r.last_start : r.end;
}

// Case-insensitive letter at i for (?i:...) contractions: ASCII letters fold
// to lower case; U+017F LATIN SMALL LETTER LONG S folds to 's' under Unicode
// simple case folding, which both fancy-regex and PCRE2 apply. No other
// character folds to d, e, l, m, r, s, t or v.
char fold_letter(const Cursor& c, std::size_t i, std::size_t& len) {
  if (i >= c.n) return 0;
  unsigned char b = c.s[i];
  len = 1;
  if (b >= 'A' && b <= 'Z') return char(b - 'A' + 'a');
  if (b < 0x80) return char(b);
  if (b == 0xC5 && i + 1 < c.n && c.s[i + 1] == 0xBF) {
    len = 2;
    return 's';
  }
  return 0;
}

// Length of '(?i:[sdmt]|ll|ve|re) at i, 0 if none. The apostrophe is ASCII.
std::size_t contraction_ci(const Cursor& c, std::size_t i) {
  if (i >= c.n || c.s[i] != '\'') return 0;
  std::size_t l1 = 0, l2 = 0;
  char a = fold_letter(c, i + 1, l1);
  if (a == 's' || a == 'd' || a == 'm' || a == 't') return 1 + l1;
  if (a != 'l' && a != 'v' && a != 'r') return 0;
  char b = fold_letter(c, i + 1 + l1, l2);
  if ((a == 'l' && b == 'l') || ((a == 'v' || a == 'r') && b == 'e')) return 1 + l1 + l2;
  return 0;
}

// Length of the case-sensitive 's|'t|'re|'ve|'m|'ll|'d at i, 0 if none.
std::size_t contraction_exact(const Cursor& c, std::size_t i) {
  if (i + 1 >= c.n || c.s[i] != '\'') return 0;
  unsigned char a = c.s[i + 1];
  if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
  if (i + 2 >= c.n) return 0;
  unsigned char b = c.s[i + 2];
  if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return 3;
  return 0;
}

// End of at most `max` \p{N} characters from i.
std::size_t skip_digits(const Cursor& c, std::size_t i, int max) {
  for (int k = 0; k < max && i < c.n; ++k) {
    std::size_t len;
    if (!(c.at(i, len) & kPropNumber)) break;
    i += len;
  }
  return i;
}

// o200k's [U]*[W]+(?i:contraction)? from s (U = Lu Lt Lm Lo M, W = Ll Lm Lo M),
// or kNone. If [W]+ fails after the greedy [U]*, the regex backtracks [U]*
// one character at a time; the first retry that works starts [W]+ at the last
// character of the [U]* run that is also in W, and [W]+ ends right after it
// (what follows it is in U but not W, or is where [W]+ failed).
std::size_t o200k_lower_word(const Cursor& c, std::size_t s) {
  std::size_t a = s, last_w_end = kNone, len;
  while (a < c.n) {
    std::uint8_t p = c.at(a, len);
    if (!(p & kPropUpperish)) break;
    a += len;
    if (p & kPropLowerish) last_w_end = a;
  }
  std::size_t w = c.skip_any(a, kPropLowerish);
  std::size_t end = w > a ? w : last_w_end;
  if (end == kNone) return kNone;
  return end + contraction_ci(c, end);
}

// o200k's [U]+[W]*(?i:contraction)? from s, or kNone. Nothing to backtrack:
// the optional tail always succeeds once [U]+ has one character.
std::size_t o200k_upper_word(const Cursor& c, std::size_t s) {
  std::size_t a = c.skip_any(s, kPropUpperish);
  if (a == s) return kNone;
  std::size_t w = c.skip_any(a, kPropLowerish);
  return w + contraction_ci(c, w);
}

// A piece that starts with an ASCII byte that is not a letter, followed by
// an ASCII byte that is not a letter or by the end of the text (half the
// pieces of code: punctuation, spaces, newlines, digits). No word or
// contraction alternative of cl100k or o200k matches there: each needs a
// letter or mark at pos, or at pos + 1 after a one-character prefix, and
// ASCII has no marks. (A newline is never a prefix, so "\n" before a letter
// is whitespace too.) What the later alternatives do is decided by the two
// bytes alone, without the general path's failed word attempts.
enum class AsciiStart { kGeneral, kDigits, kOther, kSpaceOther, kWhitespace };

[[gnu::always_inline]] inline AsciiStart ascii_start(const Cursor& c, std::size_t pos) {
  unsigned char b = c.s[pos];
  if (b >= 0x80) return AsciiStart::kGeneral;
  if (b == '\r' || b == '\n') return AsciiStart::kWhitespace;
  std::uint8_t pb = kAsciiProps.bits[b];
  bool last = pos + 1 == c.n;
  if ((pb & kPropLetter) || (!last && c.s[pos + 1] >= 0x80)) return AsciiStart::kGeneral;
  std::uint8_t pn = last ? 0 : kAsciiProps.bits[c.s[pos + 1]];
  if (pn & kPropLetter) return AsciiStart::kGeneral;
  if (pb & kPropNumber) return AsciiStart::kDigits;
  if (pb == 0) return AsciiStart::kOther;                            // [^\s\p{L}\p{N}]+ from pos
  if (b == ' ' && !last && pn == 0) return AsciiStart::kSpaceOther;  // " ?" taken
  return AsciiStart::kWhitespace;
}

// cl100k's [^\s\p{L}\p{N}]+[\r\n]* from start (the " ?" already taken).
std::size_t cl100k_other(const Cursor& c, std::size_t start) {
  std::size_t e = c.skip_other(start);
  while (c.is_newline(e)) ++e;
  return e;
}

// The whitespace alternatives at pos, as cl100k and o200k order them:
// \s++$ when ws_run_to_end (tiktoken's cl100k), then \s*[\r\n]+ (or
// \s*[\r\n]: \s* backtracks to the run's last newline, and nothing after it
// in the run is a newline), then \s+(?!\S) and \s+.
std::size_t whitespace_piece(const Cursor& c, std::size_t pos, bool ws_run_to_end) {
  WsRun r = whitespace_run(c, pos);
  if (ws_run_to_end && r.end == c.n) return r.end;
  if (r.last_newline_end) return r.last_newline_end;
  return whitespace_tail(c, r, pos);
}

// o200k's [^\s\p{L}\p{N}]+[\r\n/]* from start (the " ?" already taken).
std::size_t o200k_other(const Cursor& c, std::size_t start) {
  std::size_t e = c.skip_other(start);
  while (e < c.n && (c.s[e] == '\r' || c.s[e] == '\n' || c.s[e] == '/')) ++e;
  return e;
}

[[gnu::always_inline]] inline std::size_t gpt2_piece(const Cursor& c, std::size_t pos) {
  std::size_t word = pos + (c.s[pos] == ' ' && pos + 1 < c.n);
  if (is_ascii_letter(c.s[word])) {
    std::size_t e = ascii_word_end<kPropLetter>(c, word);
    if (e != kNone) return e;
  }
  if (std::size_t k = contraction_exact(c, pos)) return pos + k;
  std::size_t len;
  std::uint8_t p = c.at(pos, len);
  std::size_t start = pos;
  // " ?" is taken when the character after the space starts a letter, number
  // or other run; before whitespace or at the end it cannot help any of them.
  if (c.s[pos] == ' ' && pos + 1 < c.n) {
    std::size_t len2;
    std::uint8_t q = c.at(pos + 1, len2);
    if (!(q & kPropSpace)) {
      start = pos + 1;
      p = q;
    }
  }
  if (p & kPropLetter) return c.skip_any(start, kPropLetter);
  if (p & kPropNumber) return c.skip_any(start, kPropNumber);
  if (!(p & kPropSpace)) return c.skip_other(start);
  return whitespace_tail(c, whitespace_run(c, pos), pos);
}

[[gnu::always_inline]] inline std::size_t cl100k_piece(const Cursor& c, std::size_t pos,
                                                       int max_digits, bool ws_run_to_end) {
  switch (ascii_start(c, pos)) {
    case AsciiStart::kGeneral: break;
    case AsciiStart::kDigits: return skip_digits(c, pos, max_digits);
    case AsciiStart::kOther: return cl100k_other(c, pos);
    case AsciiStart::kSpaceOther: return cl100k_other(c, pos + 1);
    case AsciiStart::kWhitespace: return whitespace_piece(c, pos, ws_run_to_end);
  }
  {
    unsigned char b = c.s[pos];
    bool prefix = b < 0x80 && b != '\'' && b != '\r' && b != '\n' &&
                  !(kAsciiProps.bits[b] & (kPropLetter | kPropNumber));
    std::size_t word = pos + (prefix && pos + 1 < c.n);
    if (is_ascii_letter(c.s[word])) {
      std::size_t e = ascii_word_end<kPropLetter>(c, word);
      if (e != kNone) return e;
    }
  }
  if (std::size_t k = contraction_ci(c, pos)) return pos + k;
  std::size_t len;
  std::uint8_t p = c.at(pos, len);
  // [^\r\n\p{L}\p{N}]?\p{L}+: the optional prefix can be any character but
  // \r, \n, letters and numbers (so also a space or a tab). Possessive or not,
  // dropping the prefix never helps: the prefix itself is not a letter.
  if (p & kPropLetter) return c.skip_any(pos + len, kPropLetter);
  if (!(p & kPropNumber) && !c.is_newline(pos) && pos + len < c.n) {
    std::size_t len2;
    if (c.at(pos + len, len2) & kPropLetter) return c.skip_any(pos + len + len2, kPropLetter);
  }
  if (p & kPropNumber) return skip_digits(c, pos, max_digits);
  // " ?[^\s\p{L}\p{N}]+[\r\n]*"
  std::size_t start = kNone;
  if (!(p & kPropSpace)) {
    start = pos;
  } else if (c.s[pos] == ' ' && pos + 1 < c.n) {
    std::size_t len2;
    if (!(c.at(pos + 1, len2) & kLNS)) start = pos + 1;
  }
  if (start != kNone) return cl100k_other(c, start);
  return whitespace_piece(c, pos, ws_run_to_end);
}

[[gnu::always_inline]] inline std::size_t o200k_piece(const Cursor& c, std::size_t pos) {
  switch (ascii_start(c, pos)) {
    case AsciiStart::kGeneral: break;
    case AsciiStart::kDigits: return skip_digits(c, pos, 3);
    case AsciiStart::kOther: return o200k_other(c, pos);
    case AsciiStart::kSpaceOther: return o200k_other(c, pos + 1);
    case AsciiStart::kWhitespace: return whitespace_piece(c, pos, false);
  }
  {
    // An ASCII word: optional prefix, capitals, then lower case letters.
    // Without lower case letters the general path handles the backtracking.
    unsigned char b = c.s[pos];
    bool prefix =
        b < 0x80 && b != '\r' && b != '\n' && !(kAsciiProps.bits[b] & (kPropLetter | kPropNumber));
    std::size_t word = pos + (prefix && pos + 1 < c.n);
    if (is_ascii_letter(c.s[word])) {
      std::size_t upper = ascii_word_end<kPropUpperish>(c, word);
      std::size_t e = upper == kNone ? kNone : ascii_word_end<kPropLowerish>(c, upper);
      if (e != kNone && e > upper) return e + contraction_ci(c, e);
    }
  }
  std::size_t len;
  std::uint8_t p = c.at(pos, len);
  // [^\r\n\p{L}\p{N}]? is greedy: each word alternative first tries with the
  // prefix taken, then without. Marks are no \p{L}, so a mark can be the prefix
  // or the word's first character.
  bool can_prefix = !(p & (kPropLetter | kPropNumber)) && !c.is_newline(pos) && pos + len < c.n;
  bool can_start = p & (kPropLetter | kPropMark);
  std::size_t e;
  if (can_prefix && (e = o200k_lower_word(c, pos + len)) != kNone) return e;
  if (can_start && (e = o200k_lower_word(c, pos)) != kNone) return e;
  if (can_prefix && (e = o200k_upper_word(c, pos + len)) != kNone) return e;
  if (can_start && (e = o200k_upper_word(c, pos)) != kNone) return e;
  if (p & kPropNumber) return skip_digits(c, pos, 3);
  // " ?[^\s\p{L}\p{N}]+[\r\n/]*"
  std::size_t start = kNone;
  if (!(p & kPropSpace)) {
    start = pos;
  } else if (c.s[pos] == ' ' && pos + 1 < c.n) {
    std::size_t len2;
    if (!(c.at(pos + 1, len2) & kLNS)) start = pos + 1;
  }
  if (start != kNone) return o200k_other(c, start);
  return whitespace_piece(c, pos, false);
}

// Up to `max` consecutive pieces from pos: a loop around the inlined scanner,
// so the per-piece cost is the scan itself, not two calls and a dispatch.
template <class Piece>
std::size_t scan_many(std::string_view text, std::size_t pos, std::size_t* ends, std::size_t max,
                      Piece piece) {
  Cursor c(text);
  std::size_t k = 0;
  while (k < max && pos < c.n) ends[k++] = pos = piece(c, pos);
  return k;
}

}  // namespace

std::size_t scan_gpt2(std::string_view text, std::size_t pos, std::size_t* ends, std::size_t max) {
  return scan_many(text, pos, ends, max,
                   [](const Cursor& c, std::size_t p) { return gpt2_piece(c, p); });
}

namespace {
constexpr piece_machine::Tables kCl100kTables3 = cl100k_machine::make_tables(3);
constexpr piece_machine::Tables kCl100kTables1 = cl100k_machine::make_tables(1);
constexpr piece_machine::Tables kO200kTables = o200k_machine::make_tables();

// The piece at q when it starts a run of blanks that ends before a
// non-space character, holds no \r or \n and has two or more characters
// (indentation after a newline piece), else q. It is the run less its last
// character, for cl100k and o200k alike: the alternatives before
// \s+(?!\S) all fail there (a word needs a letter or mark at q or, after a
// one-character prefix, at q + 1; a number or punctuation needs one at q or
// after a space; \s*[\r\n]+ a newline; tiktoken's \s++$ the end of the
// text), and \s+(?!\S) gives back exactly the last blank.
std::size_t blank_run_piece(const Cursor& c, std::size_t q) {
  auto blank = [](unsigned char b) { return b == ' ' || b == '\t'; };
  if (q + 2 >= c.n || !blank(c.s[q]) || !blank(c.s[q + 1])) return q;
  WsRun r = whitespace_run(c, q);
  if (r.last_newline_end || r.end == c.n) return q;
  return r.last_start;
}

// The general scanner as a state machine's escape (piece_machine::run).
template <class General>
struct Escape {
  const Cursor& c;
  General& general;
  std::size_t operator()(std::size_t p) {
    // Most escapes on code start at indentation: that case first.
    std::size_t e = blank_run_piece(c, p);
    return e != p ? e : general(c, p);
  }
  std::size_t blanks(std::size_t p) const { return blank_run_piece(c, p); }
};

// Up to `max` pieces from pos through the state machine of tables t, the
// general scanner taking the pieces it escapes.
template <class General>
std::size_t scan_machine(const piece_machine::Tables& t, std::string_view text, std::size_t pos,
                         std::size_t* ends, std::size_t max, ScanEngine engine, General general) {
  Cursor c(text);
  Escape<General> piece{c, general};
#if defined(TOK_PIECE_MACHINE_SSSE3)
  if (engine == ScanEngine::kAuto && cpu_features().ssse3) {
    return piece_machine::scan_ssse3(t, c.s, c.n, pos, ends, max, piece);
  }
#else
  (void)engine;
#endif
  return piece_machine::scan(t, c.s, c.n, pos, ends, max, piece);
}
}  // namespace

std::size_t scan_cl100k(std::string_view text, std::size_t pos, std::size_t* ends, std::size_t max,
                        int max_digits, bool ws_run_to_end, ScanEngine engine) {
  auto general = [=](const Cursor& c, std::size_t p) {
    return cl100k_piece(c, p, max_digits, ws_run_to_end);
  };
  if (engine == ScanEngine::kGeneral || (max_digits != 3 && max_digits != 1)) {
    return scan_many(text, pos, ends, max, general);
  }
  return scan_machine(max_digits == 3 ? kCl100kTables3 : kCl100kTables1, text, pos, ends, max,
                      engine, general);
}

std::size_t scan_o200k(std::string_view text, std::size_t pos, std::size_t* ends, std::size_t max,
                       ScanEngine engine) {
  auto general = [](const Cursor& c, std::size_t p) { return o200k_piece(c, p); };
  if (engine == ScanEngine::kGeneral) return scan_many(text, pos, ends, max, general);
  return scan_machine(kO200kTables, text, pos, ends, max, engine, general);
}

}  // namespace tok::text
