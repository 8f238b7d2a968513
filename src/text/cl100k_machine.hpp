// The cl100k family's pieces over ASCII text as a byte-class state machine:
// one table step a byte, no branch on what kind of piece comes next.
//
// The hand scanner (scanners.cpp) picks an alternative per piece, and on
// mixed text and code the kind of the next piece is close to random: a word,
// a space, punctuation, a newline. Each such pick is a branch the CPU guesses
// wrong about half the time, and the guesses cost more than the scanning.
// Here the state after each byte comes from a table indexed by the byte's
// class, and whether a piece ends before that byte is a bit of the new state.
// On x86 the table step is one byte shuffle (the state in a vector lane, each
// class's row a 16-byte shuffle control), so consecutive steps wait on one
// another for a cycle, not for a load.
//
// The machine covers the common cases only. Anything else (a byte >= 0x80, a
// run of two or more whitespace characters or one holding a newline after its
// first character) moves it to kEsc: the piece that started at the last
// boundary is then handed to the general scanner, which knows every case,
// and the machine restarts after that piece. A piece start is a true piece
// start whichever scanner found it (the pattern has no lookbehind), so the
// split is the general scanner's exactly; tests/unit/text_test.cpp compares
// the two on generated and real text.
//
// Alternatives of the pattern, in order, and the states that follow them
// (letters folded to lower case for the contractions):
//   '(?i:[sdmt]|ll|ve|re)       A1 -> Al / Avr -> Done
//   [^\r\n\p{L}\p{N}]?\p{L}+    P1 (space), Pt (tab, \v, \f), Po (other), A1
//                               (apostrophe) as the prefix, then W
//   \p{N}{1,max_digits}         D1 -> D2 -> Done
//   " ?[^\s\p{L}\p{N}]+[\r\n]*" P1 or Po / A1, then PR, then PRN
//   whitespace                  a single space, tab or newline before a
//                               non-space ends by itself (the lookahead of
//                               \s+(?!\S) fails, \s or \s*[\r\n] take the one
//                               character); a longer run escapes.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define TOK_CL100K_MACHINE_SSSE3 1
#endif

#include "text/unicode_props.hpp"

namespace tok::text::cl100k_machine {

enum Class : std::uint8_t {
  kL,    // a letter not named below
  kLs,   // s, d, m, t (either case): a contraction after an apostrophe
  kLl,   // l
  kLvr,  // v, r
  kLe,   // e
  kD,    // a digit
  kSp,   // ' '
  kWs,   // \t, \v, \f
  kNl,   // \r, \n
  kAp,   // '
  kO,    // any other ASCII byte
  kX,    // a byte >= 0x80
  kClasses
};

// States (the low four bits of a row entry).
inline constexpr std::uint8_t kS0 = 0;
inline constexpr std::uint8_t kW = 1;
inline constexpr std::uint8_t kP1 = 2;
inline constexpr std::uint8_t kPt = 3;
inline constexpr std::uint8_t kPo = 4;
inline constexpr std::uint8_t kA1 = 5;
inline constexpr std::uint8_t kAl = 6;
inline constexpr std::uint8_t kAvr = 7;
inline constexpr std::uint8_t kDone = 8;
inline constexpr std::uint8_t kD1 = 9;
inline constexpr std::uint8_t kD2 = 10;
inline constexpr std::uint8_t kPR = 11;
inline constexpr std::uint8_t kPRN = 12;
inline constexpr std::uint8_t kNl1 = 13;
inline constexpr std::uint8_t kEscState = 14;

// Flags above the state's four bits (a byte shuffle reads only the low four
// bits of its control, and bit 7 must stay clear).
inline constexpr std::uint8_t kEmit = 0x10;  // a piece ends before this byte
inline constexpr std::uint8_t kEsc = 0x20;   // hand the current piece to the general scanner

struct Tables {
  std::uint8_t cls[256];
  alignas(16) std::uint8_t row[kClasses][16];  // row[class][state]: next state | flags
};

constexpr bool is_letter(int c) { return c <= kLe; }

// The state after the first byte of a piece.
constexpr std::uint8_t start(int c) {
  if (is_letter(c)) return kW;
  switch (c) {
    case kD: return kD1;
    case kSp: return kP1;
    case kWs: return kPt;
    case kNl: return kNl1;
    case kAp: return kA1;
    case kO: return kPo;
    default: return kEscState | kEsc;
  }
}

// The piece ends before this byte, which starts the next one.
constexpr std::uint8_t term(int c) { return static_cast<std::uint8_t>(kEmit | start(c)); }

constexpr std::uint8_t esc() { return kEscState | kEsc; }

constexpr std::uint8_t next(int s, int c, int max_digits) {
  bool letter = is_letter(c);
  switch (s) {
    case kS0: return start(c);
    case kW: return letter ? kW : c == kX ? esc() : term(c);
    case kP1:  // " ": a word's prefix, punctuation's " ?", or alone before a digit
      if (letter) return kW;
      if (c == kO || c == kAp) return kPR;
      return c == kD ? term(c) : esc();
    case kPt:  // tab, \v, \f: a word's prefix, else alone
      if (letter) return kW;
      return c == kD || c == kO || c == kAp ? term(c) : esc();
    case kPo:  // other: a word's prefix, else a punctuation run
      if (letter) return kW;
      if (c == kO || c == kAp) return kPR;
      if (c == kNl) return kPRN;
      return c == kX ? esc() : term(c);
    case kA1:  // apostrophe: a contraction, a word's prefix, or punctuation
      if (c == kLs) return kDone;
      if (c == kLl) return kAl;
      if (c == kLvr) return kAvr;
      if (letter) return kW;
      if (c == kO || c == kAp) return kPR;
      if (c == kNl) return kPRN;
      return c == kX ? esc() : term(c);
    case kAl: return c == kLl ? kDone : letter ? kW : c == kX ? esc() : term(c);
    case kAvr: return c == kLe ? kDone : letter ? kW : c == kX ? esc() : term(c);
    case kDone: return term(c);
    case kD1: return c == kD ? (max_digits >= 2 ? kD2 : term(c)) : c == kX ? esc() : term(c);
    case kD2: return c == kD ? (max_digits >= 3 ? kDone : term(c)) : c == kX ? esc() : term(c);
    case kPR:
      if (c == kO || c == kAp) return kPR;
      if (c == kNl) return kPRN;
      return c == kX ? esc() : term(c);
    case kPRN: return c == kNl ? kPRN : term(c);
    case kNl1: return c == kSp || c == kWs || c == kNl || c == kX ? esc() : term(c);
    default: return esc();
  }
}

constexpr Tables make_tables(int max_digits) {
  Tables t{};
  for (int b = 0; b < 256; ++b) {
    std::uint8_t c = kX;
    if (b < 0x80) {
      std::uint8_t p = kAsciiProps.bits[b];
      int lower = b | 0x20;
      if (p & kPropLetter) {
        c = lower == 's' || lower == 'd' || lower == 'm' || lower == 't' ? kLs
            : lower == 'l'                                               ? kLl
            : lower == 'v' || lower == 'r'                               ? kLvr
            : lower == 'e'                                               ? kLe
                                                                         : kL;
      } else if (p & kPropNumber) {
        c = kD;
      } else if (b == '\r' || b == '\n') {
        c = kNl;
      } else if (b == ' ') {
        c = kSp;
      } else if (p & kPropSpace) {
        c = kWs;
      } else if (b == '\'') {
        c = kAp;
      } else {
        c = kO;
      }
    }
    t.cls[b] = c;
  }
  for (int c = 0; c < kClasses; ++c) {
    for (int s = 0; s < 16; ++s) t.row[c][s] = next(s, c, max_digits);
  }
  return t;
}

// Up to `max` piece ends from pos (a piece start, pos < n) into ends[];
// returns their number (>= 1; fewer than max only at the end of the text).
// piece(p) is the general scanner: the end of the piece that starts at p.
//
// Steps go eight at a time with no test between them while eight more ends
// fit: kEsc is sticky (the escape state's row leads back to it, with no
// kEmit), so after the eight the piece to hand over still starts at the last
// end written. A piece end found past `max` is dropped and found again by the
// next call, which starts at the last end returned.
template <class Step>
std::size_t run(const unsigned char* s, std::size_t n, std::size_t pos, std::size_t* ends,
                std::size_t max, Step& step) {
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
    if (!(st & kEsc)) {  // the end of the text
      ends[k++] = n;
      return k;
    }
    std::size_t e = step.piece(k ? ends[k - 1] : pos);
    ends[k++] = e;
    if (k == max || e == n) return k;
    i = e;
    step.reset();
  }
}

// The table form: the state in a register, each step a load.
template <class Piece>
struct ScalarStep {
  const Tables& t;
  Piece& piece;
  unsigned st = kS0;
  unsigned advance(unsigned char b) { return st = t.row[t.cls[b]][st & 15]; }
  unsigned state() const { return st; }
  void reset() { st = kS0; }
};

template <class Piece>
std::size_t scan(const Tables& t, const unsigned char* s, std::size_t n, std::size_t pos,
                 std::size_t* ends, std::size_t max, Piece piece) {
  ScalarStep<Piece> step{t, piece};
  return run(s, n, pos, ends, max, step);
}

#if defined(TOK_CL100K_MACHINE_SSSE3)
// The vector form: the state in lane 0 of a vector, each step one byte
// shuffle of the byte's class row by the state.
template <class Piece>
struct Ssse3Step {
  const Tables& t;
  Piece& piece;
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
__attribute__((target("ssse3"), flatten)) std::size_t scan_ssse3(const Tables& t, const unsigned char* s,
                                                        std::size_t n, std::size_t pos,
                                                        std::size_t* ends, std::size_t max,
                                                        Piece piece) {
  Ssse3Step<Piece> step{t, piece};
  return run(s, n, pos, ends, max, step);
}
#endif

}  // namespace tok::text::cl100k_machine
