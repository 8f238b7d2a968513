// The cl100k family's pieces over ASCII as a byte-class state machine (run
// by piece_machine.hpp, which says why).
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

#include <cstdint>

#include "text/piece_machine.hpp"

namespace tok::text::cl100k_machine {

using piece_machine::kEmit;
using piece_machine::kEsc;
using piece_machine::Tables;

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
  kX,    // a byte >= 0x80 not named below
  kC,    // a continuation byte (after a lead byte)
  kClasses
};
static_assert(kClasses <= piece_machine::kMaxClasses);

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
  // The rest of a letter whose lead byte was a letter (Kind::kLetterLead);
  // after any other lead byte the machine has escaped.
  if (c == kC) return s == kW ? kW : esc();
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

constexpr std::uint8_t byte_class(int b) {
  using piece_machine::Kind;
  switch (piece_machine::kind(b)) {
    case Kind::kUpper:
    case Kind::kLower: return static_cast<std::uint8_t>(kL + piece_machine::contraction_role(b));
    case Kind::kLetterLead: return kL;
    case Kind::kContinuation: return kC;
    case Kind::kDigit: return kD;
    case Kind::kNewline: return kNl;
    case Kind::kSpace: return kSp;
    case Kind::kOtherSpace: return kWs;
    case Kind::kApostrophe: return kAp;
    case Kind::kSlash:
    case Kind::kOther: return kO;
    default: return kX;
  }
}

constexpr Tables make_tables(int max_digits) {
  return piece_machine::make_tables(kClasses, byte_class,
                                    [=](int s, int c) { return next(s, c, max_digits); });
}

}  // namespace tok::text::cl100k_machine
