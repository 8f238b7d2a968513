// o200k_base's pieces over ASCII as a byte-class state machine (run by
// piece_machine.hpp, which says why).
//
// In ASCII the upper-case class [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}] is A-Z and
// the lower-case one [\p{Ll}\p{Lm}\p{Lo}\p{M}] is a-z, disjoint, so the two
// word alternatives come to: an optional prefix, a run of capitals, then a
// run of small letters, a capital after a small letter starting the next
// word; then an optional contraction. Alternatives and states:
//   [^\r\n\p{L}\p{N}]?[U]*[W]+(?i:contraction)?   P1 (space), Pt (tab, \v,
//   [^\r\n\p{L}\p{N}]?[U]+[W]*(?i:contraction)?   \f), Po (other) as the
//                                                 prefix; WU (capitals), WL
//                                                 (small letters); WA -> WAl
//                                                 / WAvr -> Done
//   \p{N}{1,3}                                    D1 -> D2 -> Done
//   " ?[^\s\p{L}\p{N}]+[\r\n/]*"                  P1 or Po, then PR, PRN
//   whitespace                                    as in cl100k_machine.hpp
// An apostrophe after a word that does not start a contraction ends the
// word one byte back, which the machine cannot say: it escapes.
#pragma once

#include <cstdint>

#include "text/piece_machine.hpp"

namespace tok::text::o200k_machine {

using piece_machine::kEmit;
using piece_machine::kEsc;
using piece_machine::Tables;

// Letters by case and by their place in a contraction.
enum Class : std::uint8_t {
  kU,    // a capital not named below
  kUs,   // S, D, M, T
  kUl,   // L
  kUvr,  // V, R
  kUe,   // E
  kW,    // a small letter not named below
  kWs,   // s, d, m, t
  kWl,   // l
  kWvr,  // v, r
  kWe,   // e
  kD,    // a digit
  kSp,   // ' '
  kTab,  // \t, \v, \f
  kNl,   // \r, \n
  kAp,   // '
  kSl,   // /
  kO,    // any other ASCII byte
  kX,    // a byte >= 0x80
  kClasses
};
static_assert(kClasses <= piece_machine::kMaxClasses);

inline constexpr std::uint8_t kS0 = 0;
inline constexpr std::uint8_t kWU = 1;  // in the capitals
inline constexpr std::uint8_t kWL = 2;  // in the small letters
inline constexpr std::uint8_t kP1 = 3;
inline constexpr std::uint8_t kPt = 4;
inline constexpr std::uint8_t kPo = 5;
inline constexpr std::uint8_t kWA = 6;  // a word, then an apostrophe
inline constexpr std::uint8_t kWAl = 7;
inline constexpr std::uint8_t kWAvr = 8;
inline constexpr std::uint8_t kDone = 9;
inline constexpr std::uint8_t kD1 = 10;
inline constexpr std::uint8_t kD2 = 11;
inline constexpr std::uint8_t kPR = 12;
inline constexpr std::uint8_t kPRN = 13;
inline constexpr std::uint8_t kNl1 = 14;
inline constexpr std::uint8_t kEscState = 15;

constexpr bool is_upper(int c) { return c <= kUe; }
constexpr bool is_lower(int c) { return c >= kW && c <= kWe; }
constexpr bool is_letter(int c) { return c <= kWe; }
constexpr bool is_contraction_s(int c) { return c == kUs || c == kWs; }
constexpr bool is_l(int c) { return c == kUl || c == kWl; }
constexpr bool is_vr(int c) { return c == kUvr || c == kWvr; }
constexpr bool is_e(int c) { return c == kUe || c == kWe; }
// In [^\s\p{L}\p{N}]: punctuation runs.
constexpr bool is_other(int c) { return c == kO || c == kAp || c == kSl; }

constexpr std::uint8_t esc() { return kEscState | kEsc; }

constexpr std::uint8_t word(int c) { return is_upper(c) ? kWU : kWL; }

constexpr std::uint8_t start(int c) {
  if (is_letter(c)) return word(c);
  switch (c) {
    case kD: return kD1;
    case kSp: return kP1;
    case kTab: return kPt;
    case kNl: return kNl1;
    case kAp:
    case kSl:
    case kO: return kPo;
    default: return esc();
  }
}

constexpr std::uint8_t term(int c) { return static_cast<std::uint8_t>(kEmit | start(c)); }

constexpr std::uint8_t next(int s, int c) {
  switch (s) {
    case kS0: return start(c);
    case kWU:
      if (is_upper(c)) return kWU;
      if (is_lower(c)) return kWL;
      if (c == kAp) return kWA;
      return c == kX ? esc() : term(c);
    case kWL:
      if (is_lower(c)) return kWL;
      if (c == kAp) return kWA;
      return c == kX ? esc() : term(c);  // a capital starts the next word
    case kWA:
      if (is_contraction_s(c)) return kDone;
      if (is_l(c)) return kWAl;
      if (is_vr(c)) return kWAvr;
      return esc();
    case kWAl: return is_l(c) ? kDone : esc();
    case kWAvr: return is_e(c) ? kDone : esc();
    case kP1:
      if (is_letter(c)) return word(c);
      if (is_other(c)) return kPR;
      return c == kD ? term(c) : esc();
    case kPt:
      if (is_letter(c)) return word(c);
      return c == kD || is_other(c) ? term(c) : esc();
    case kPo:
      if (is_letter(c)) return word(c);
      if (is_other(c)) return kPR;
      if (c == kNl) return kPRN;
      return c == kX ? esc() : term(c);
    case kDone: return term(c);
    case kD1: return c == kD ? kD2 : c == kX ? esc() : term(c);
    case kD2: return c == kD ? kDone : c == kX ? esc() : term(c);
    case kPR:
      if (is_other(c)) return kPR;
      if (c == kNl) return kPRN;
      return c == kX ? esc() : term(c);
    case kPRN: return c == kNl || c == kSl ? kPRN : term(c);
    case kNl1: return c == kSp || c == kTab || c == kNl || c == kX ? esc() : term(c);
    default: return esc();
  }
}

constexpr std::uint8_t byte_class(int b) {
  using piece_machine::Kind;
  switch (piece_machine::kind(b)) {
    case Kind::kUpper: return static_cast<std::uint8_t>(kU + piece_machine::contraction_role(b));
    case Kind::kLower: return static_cast<std::uint8_t>(kW + piece_machine::contraction_role(b));
    case Kind::kDigit: return kD;
    case Kind::kNewline: return kNl;
    case Kind::kSpace: return kSp;
    case Kind::kOtherSpace: return kTab;
    case Kind::kApostrophe: return kAp;
    case Kind::kSlash: return kSl;
    case Kind::kOther: return kO;
    default: return kX;
  }
}

constexpr Tables make_tables() {
  Tables t = piece_machine::make_tables(kClasses, byte_class, next);
  t.escape_at_end[kWA] = t.escape_at_end[kWAl] = t.escape_at_end[kWAvr] = 1;
  return t;
}

}  // namespace tok::text::o200k_machine
