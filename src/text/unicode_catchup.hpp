// Characters PCRE2 does not know yet. The hand scanners classify characters
// with ICU's tables (Unicode 15.0 in ICU 72), as tiktoken's Rust regex crate
// and Hugging Face's Oniguruma do; PCRE2 10.42 follows Unicode 14, so it sees
// the ~4,400 characters assigned in 15.0 (Kawi, Nag Mundari, CJK Extension H,
// a few Kannada and Lao marks, ...) as unassigned (Cn) and splits them
// differently. The regex path adds them back to each \p{...} it compiles.
#pragma once

#include <string>
#include <string_view>

namespace tok::text {

// PCRE2 class members ("\x{1E4D0}-\x{1E4EB}\x{...}") for the characters that
// ICU assigns to the general category or script `name` (as in \p{name}: "L",
// "Lu", "Letter", "N", "Han", ...) and that are newer than PCRE2's Unicode
// tables. Empty when there are none, when ICU does not know the name, or when
// the name covers unassigned characters (C, Cn: PCRE2 already counts new
// characters there and a class cannot subtract them).
std::string pcre2_missing_members(std::string_view name);

// The name as PCRE2 10.42 accepts it: a general category by its short name
// ("Letter" -> "L", "Uppercase_Letter" -> "Lu", as Oniguruma and the Rust
// regex crate accept both); anything else unchanged.
std::string pcre2_property_name(std::string_view name);

}  // namespace tok::text
