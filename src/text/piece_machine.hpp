// The runner of the pre-tokenizer's byte-class state machines
// (cl100k_machine.hpp, o200k_machine.hpp): one table step a byte, no branch
// on what kind of piece comes next.
//
// The hand scanners (scanners.cpp) pick an alternative per piece, and on
// mixed text and code the kind of the next piece is close to random: a word,
// a space, punctuation, a newline. Each such pick is a branch the CPU guesses
// wrong about half the time, and the guesses cost more than the scanning.
// Here the state after each byte comes from a table indexed by the byte's
// class, and whether a piece ends before that byte is a bit of the new state.
// On x86 the table step is one byte shuffle (the state in a vector lane, each
// class's row a 16-byte shuffle control), so consecutive steps wait on one
// another for a cycle, not for a load.
//
// A machine covers the common cases only. Anything else (a byte >= 0x80, a
// run of two or more whitespace characters, ...) moves it to its escape
// state: the piece that started at the last piece end is then handed to the
// general scanner, which knows every case, and the machine restarts after
// that piece. A piece start is a true piece start whichever scanner found it
// (the patterns have no lookbehind), so the split is the general scanner's
// exactly; tests/text/piece_machine_test.cpp compares the two, and the
// machines with PCRE2, on generated text that reaches every state.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define TOK_PIECE_MACHINE_SSSE3 1
#endif

#include "text/unicode_props.hpp"

namespace tok::text::piece_machine {

// What each machine builds its byte classes from.
enum class Kind : std::uint8_t {
  kUpper,       // A-Z
  kLower,       // a-z
  kDigit,       // 0-9
  kNewline,     // \r, \n
  kSpace,       // ' '
  kOtherSpace,  // \t, \v, \f: the rest of ASCII \s
  kApostrophe,  // '
  kSlash,       // /
  kOther,       // any other ASCII byte
  // The lead byte of a three-byte character whose every code point is a
  // letter of class Lo (E5-E9: CJK ideographs U+5000-U+9FFF; EB, EC: Hangul
  // syllables U+B000-U+CFFF): to every pattern here such a character is a
  // letter like any other, in o200k both its cases.
  kLetterLead,
  kContinuation,  // 0x80-0xBF: only ever after a lead byte (the text is valid UTF-8)
  kHigh,          // any other byte >= 0x80
};

constexpr bool is_letter_lead(int b) { return (b >= 0xE5 && b <= 0xE9) || b == 0xEB || b == 0xEC; }

constexpr Kind kind(int b) {
  if (b >= 0x80 && b < 0xC0) return Kind::kContinuation;
  if (is_letter_lead(b)) return Kind::kLetterLead;
  if (b >= 0x80) return Kind::kHigh;
  std::uint8_t p = kAsciiProps.bits[b];
  if (p & kPropLetter) return (p & kPropUpperish) ? Kind::kUpper : Kind::kLower;
  if (p & kPropNumber) return Kind::kDigit;
  if (b == '\r' || b == '\n') return Kind::kNewline;
  if (b == ' ') return Kind::kSpace;
  if (p & kPropSpace) return Kind::kOtherSpace;
  if (b == '\'') return Kind::kApostrophe;
  return b == '/' ? Kind::kSlash : Kind::kOther;
}

// A letter's place in a contraction after an apostrophe, either case:
// 1 for s, d, m, t (complete), 2 for l (ll), 3 for v, r (ve, re), 4 for e, else 0.
constexpr int contraction_role(int b) {
  int lower = b | 0x20;
  if (lower == 's' || lower == 'd' || lower == 'm' || lower == 't') return 1;
  if (lower == 'l') return 2;
  if (lower == 'v' || lower == 'r') return 3;
  return lower == 'e' ? 4 : 0;
}

// Flags above a state's four bits (a byte shuffle reads only the low four
// bits of its control, and bit 7 must stay clear).
inline constexpr std::uint8_t kEmit = 0x10;  // a piece ends before this byte
inline constexpr std::uint8_t kEsc = 0x20;   // hand the current piece to the general scanner

// State 0 is a piece's start; the escape state's row must lead back to
// itself with no kEmit.
inline constexpr int kMaxClasses = 18;
struct Tables {
  std::uint8_t cls[256];
  alignas(16) std::uint8_t row[kMaxClasses][16];  // row[class][state]: next state | flags
  // Nonzero for a state whose piece is not settled when the text ends there
  // (o200k: a word and an apostrophe that may start a contraction): the
  // general scanner takes that piece.
  std::uint8_t escape_at_end[16];
  // Nonzero for a byte >= 0x80 that escapes from a piece's start: a piece
  // that starts with one, or one byte before one, goes to the general
  // scanner at once (run()).
  std::uint8_t hands_over[256];
};

// Tables from a machine's byte classes, class_of(byte), and its transitions,
// next(state, class), for classes [0, classes).
template <class ClassOf, class Next>
constexpr Tables make_tables(int classes, ClassOf class_of, Next next) {
  Tables t{};
  for (int b = 0; b < 256; ++b) t.cls[b] = class_of(b);
  for (int c = 0; c < classes; ++c) {
    for (int s = 0; s < 16; ++s) t.row[c][s] = next(s, c);
  }
  for (int b = 0x80; b < 256; ++b) t.hands_over[b] = (t.row[t.cls[b]][0] & kEsc) != 0;
  return t;
}

// Does the piece at e start with, or one byte before, a byte that escapes?
inline bool hands_over(const Tables& t, const unsigned char* s, std::size_t n, std::size_t e) {
  const unsigned b0 = s[e], b1 = e + 1 < n ? s[e + 1] : 0;
  return ((b0 | b1) & 0x80) && (t.hands_over[b0] | t.hands_over[b1]);
}

// The pieces from e (a piece start, e < n, hands_over) that the general
// scanner takes at once, appended to ends[0, k); returns the new count.
// Kept out of line: inlined beside the machine's loop, a second copy of
// the general scanner slowed that loop on code by a twentieth.
template <class Step>
[[gnu::noinline]] std::size_t general_run(const Tables& t, const unsigned char* s, std::size_t n,
                                          std::size_t e, std::size_t* ends, std::size_t k,
                                          std::size_t max, Step& step) {
  do {
    ends[k++] = e = step.piece(e);
  } while (k < max && e < n && hands_over(t, s, n, e));
  return k;
}

// Up to `max` piece ends from pos (a piece start, pos < n) into ends[];
// returns their number (>= 1; fewer than max only at the end of the text).
// piece(p) is the general scanner: the end of the piece that starts at p.
//
// Steps go eight at a time with no test between them while eight more ends
// fit in ends[]: kEsc is sticky (the escape state's row leads back to it,
// with no kEmit), so after the eight the piece to hand over still starts at
// the last end written. The next call starts at the last end returned, a
// piece start, so stopping at `max` loses nothing.
template <class Step>
std::size_t run(const Tables& t, const unsigned char* s, std::size_t n, std::size_t pos,
                std::size_t* ends, std::size_t max, Step& step) {
  std::size_t k = 0, i = pos;
  for (;;) {
    while (i + 8 <= n && k + 8 < max) {
      for (int u = 0; u < 8; ++u, ++i) {
        ends[k] = i;
        k += (step.advance(s[i]) >> 4) & 1;
      }
      if (step.state() & kEsc) break;
    }
    unsigned st = step.state();
    // One byte at a time near the end of the text or of ends[].
    while (!(st & kEsc) && k < max && i < n) {
      ends[k] = i;
      st = step.advance(s[i++]);
      k += (st >> 4) & 1;
    }
    if (k == max) return k;
    if (!(st & kEsc) && !t.escape_at_end[st & 15]) {  // the end of the text
      ends[k++] = n;
      return k;
    }
    std::size_t e = step.piece(k ? ends[k - 1] : pos);
    ends[k++] = e;
    if (k == max || e == n) return k;
    // Where the text is of a script the machine does not read (Thai,
    // Devanagari, Arabic, kana), nearly every piece escapes, and stepping
    // into each escape costs more than the general scanner alone (a tenth
    // more on such text): a piece that starts with, or one byte before, a
    // byte that escapes goes to the general scanner at once. Any piece
    // start will do for either.
    if (hands_over(t, s, n, e)) {
      k = general_run(t, s, n, e, ends, k, max, step);
      if (k == max || ends[k - 1] == n) return k;
      e = ends[k - 1];
    }
    // Indentation after a newline piece: the run of blanks that follows is
    // a piece the general scanner settles at once (blanks(e) == e: not
    // such a run), and taken here it costs no second escape.
    if (std::size_t f = step.blanks(e); f != e) {
      ends[k++] = e = f;
      if (k == max) return k;
    }
    i = e;
    step.reset();
  }
}

// The table form: the state in a register, each step a load.
template <class Piece>
struct ScalarStep {
  const Tables& t;
  Piece& piece;
  std::size_t blanks(std::size_t p) { return piece.blanks(p); }
  unsigned st = 0;
  unsigned advance(unsigned char b) { return st = t.row[t.cls[b]][st & 15]; }
  unsigned state() const { return st; }
  void reset() { st = 0; }
};

template <class Piece>
std::size_t scan(const Tables& t, const unsigned char* s, std::size_t n, std::size_t pos,
                 std::size_t* ends, std::size_t max, Piece piece) {
  ScalarStep<Piece> step{t, piece};
  return run(t, s, n, pos, ends, max, step);
}

#if defined(TOK_PIECE_MACHINE_SSSE3)
// The vector form: the state in lane 0 of a vector, each step one byte
// shuffle of the byte's class row by the state.
template <class Piece>
struct Ssse3Step {
  const Tables& t;
  Piece& piece;
  std::size_t blanks(std::size_t p) { return piece.blanks(p); }
  __m128i x = _mm_setzero_si128();
  __attribute__((target("ssse3"))) unsigned advance(unsigned char b) {
    x = _mm_shuffle_epi8(_mm_load_si128(reinterpret_cast<const __m128i*>(t.row[t.cls[b]])), x);
    return static_cast<unsigned>(_mm_cvtsi128_si32(x)) & 0xffu;
  }
  unsigned state() const { return static_cast<unsigned>(_mm_cvtsi128_si32(x)) & 0xffu; }
  void reset() { x = _mm_setzero_si128(); }
};

// Flattened: run() and each step are inlined here, where SSSE3 is allowed.
template <class Piece>
__attribute__((target("ssse3"), flatten)) std::size_t scan_ssse3(const Tables& t,
                                                                 const unsigned char* s,
                                                                 std::size_t n, std::size_t pos,
                                                                 std::size_t* ends, std::size_t max,
                                                                 Piece piece) {
  Ssse3Step<Piece> step{t, piece};
  return run(t, s, n, pos, ends, max, step);
}
#endif

}  // namespace tok::text::piece_machine
