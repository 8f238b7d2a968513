// "Did you mean": the known names closest to a mistyped one (case-blind
// edit distance, or containment for names of 3+ characters), best first, at
// most three. Every unknown-name message (encodings, models, commands,
// options, vocabularies) asks this one function, so they all suggest alike.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tok {

std::vector<std::string> suggest(std::string_view name, const std::vector<std::string>& known);

}  // namespace tok
