// The `tok show --html` page: one self-contained file (inline CSS and JS, a
// Content-Security-Policy that forbids any network access) with the coloured
// tokens, hover details (id, bytes in hex, byte offset), the summary, and for
// two vocabularies a side-by-side view. Every piece of text and every
// attribute is escaped, so no input can inject markup or script.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "show/summary.hpp"
#include "show/token_spans.hpp"

namespace tok::show {

struct PageView {
  const Tokenization* tokens;
  std::size_t shown;  // spans drawn (the rest is left out for size)
};

struct PageInput {
  std::string source;  // file name or "<stdin>"/"<text>", for the heading
  std::vector<PageView> views;
  std::vector<SummarySection> summary;
};

std::string render_page(const PageInput& in);

}  // namespace tok::show
