// Glob matching as gitignore(5) defines it: '*' and '?' never match '/',
// '[...]' is a character class ('!' or '^' negates, ranges allowed), '\'
// escapes, and '**' as a whole path component matches any number of
// directories ("**/x", "a/**/b", "a/**").
#pragma once

#include <string_view>

namespace tok::io {

bool glob_match(std::string_view pattern, std::string_view path);

}  // namespace tok::io
