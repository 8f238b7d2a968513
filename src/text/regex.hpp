// The compiled PCRE2 pattern behind PreTokenizer (internal to src/text).
//
// Patterns are written for the Rust regex crate (tiktoken) and for Oniguruma
// (Hugging Face). PCRE2 agrees with both on the constructs the split patterns
// use except three, which compile() rewrites or sets:
//  - \s: PCRE2 with UCP adds U+180E (via \h) and lacks nothing else; Rust uses
//    the White_Space property. \s and \S are replaced by explicit classes.
//  - $: PCRE2 also matches before a final newline; PCRE2_DOLLAR_ENDONLY
//    makes it the end of text only, as in Rust.
//  - \p{...}: PCRE2 10.42's tables are Unicode 14; characters assigned since
//    (per ICU) are added to each property class (text/unicode_catchup.hpp).
//    A negated property inside a class (rare in split patterns) is left as is.
#pragma once

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <memory>
#include <string>
#include <string_view>

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

// The pattern as PCRE2 must see it: \s and \S spelled as White_Space
// classes, \p{...} completed with newer characters (see above).
std::string rewrite_for_pcre2(std::string_view pattern);

}  // namespace tok::text
