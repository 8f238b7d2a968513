// The compiled PCRE2 pattern behind PreTokenizer (internal to src/text).
//
// Patterns are written for the Rust regex crate (tiktoken) and for Oniguruma
// (Hugging Face), whose Unicode classes are of the version of tok's tables
// (unicode_tables.hpp), newer than PCRE2 10.42's (14.0). compile() therefore
// spells every class escape whose meaning depends on Unicode data as explicit
// code point ranges from tok's tables before PCRE2 sees it, inside and
// outside [...], negated ones too (text/unicode_classes.hpp):
//  - \p{..}, \P{..}, \p{^..}: general categories by short or long name and
//    their aggregates (L, Letter, LC, ...), and scripts by long name
//    (Script_Extensions). Other names (short script names such as Hani) are
//    left to PCRE2's own tables.
//  - \s (White_Space; PCRE2 adds U+180E), \d (Nd) and \w (UTS #18 word:
//    Alphabetic, marks, Nd, Pc, Join_Control; PCRE2's is L, N and '_'), and
//    \S, \D, \W.
// Two things stay PCRE2's: \b and \B (its \w), and case-insensitive matching
// of a spelled-out class, which folds its members as Rust's regex crate does
// (PCRE2's own \p{Lu} ignores (?i)). Besides, $ is the end of text only
// (PCRE2_DOLLAR_ENDONLY), as in Rust.
#pragma once

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "text/pretokenizer.hpp"

namespace tok::text {

struct PreTokenizer::Regex {
  pcre2_code* code = nullptr;  // immutable after compile; shared by threads

  Regex() = default;
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;
  ~Regex() { pcre2_code_free(code); }

  static Result<std::shared_ptr<const Regex>> compile(std::string_view pattern);
};

// Where a spelled-out escape starts (starts) or ends in the rewritten
// pattern (out) and in the user's (in), for error offsets.
struct OffsetMark {
  std::size_t out, in;
  bool starts;
};
using OffsetMarks = std::vector<OffsetMark>;

// The pattern as PCRE2 must see it (see above); marks, if given, receives
// the offset marks.
std::string rewrite_for_pcre2(std::string_view pattern, OffsetMarks* marks = nullptr);

}  // namespace tok::text
