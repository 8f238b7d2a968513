// Character classes of the split patterns as code point range sets, from
// tok's Unicode tables (unicode_tables.hpp): what \p{..}, \s, \d and \w mean
// to the references (the Rust regex crate behind tiktoken, Oniguruma behind
// Hugging Face tokenizers), spelled so PCRE2 sees exactly those sets.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "text/unicode_tables.hpp"

namespace tok::text {

using RangeSet = std::vector<CodePointRange>;  // ascending, disjoint, non-adjacent

// The general category of a code point (kCn above U+10FFFF), by binary
// search of the category runs.
GeneralCategory general_category(char32_t cp);

// The set \p{name} matches, for a general category by its short or long name
// or an aggregate of them (L, Letter, LC, L&, Cased_Letter, M, N, P, S, Z,
// C, Any) or a script by its long name (Script_Extensions, as Rust's regex
// crate and PCRE2 read a bare script name). Names match loosely, as in UTS
// #18: case, spaces, '_' and '-' are ignored. nullopt for any other name.
std::optional<RangeSet> property_set(std::string_view name);

RangeSet white_space_set();  // \s: White_Space
RangeSet digit_set();        // \d: Nd
// \w: Alphabetic, M, Nd, Pc and Join_Control (UTS #18's word, which the Rust
// regex crate implements; PCRE2 10.42's is L, N and '_').
RangeSet word_set();

// Every code point not in the set.
RangeSet complement(const RangeSet& set);

// The set as PCRE2 class members ("\x{41}-\x{5A}\x{61}-\x{7A}"), without
// the surrogates U+D800..U+DFFF, which PCRE2 rejects in a UTF pattern and
// valid UTF-8 never holds.
std::string pcre2_members(const RangeSet& set);

}  // namespace tok::text
