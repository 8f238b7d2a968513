// Parser of chat templates: tokens to a syntax tree, following
// @huggingface/jinja's grammar and operator precedence (filters bind
// tighter than `is`, which binds tighter than arithmetic). Nesting is
// bounded so a hostile template cannot exhaust the stack.
#pragma once

#include <string_view>

#include "chat/ast.hpp"
#include "core/result.hpp"

namespace tok::chat {

inline constexpr int kMaxNesting = 500;

// Preprocesses, tokenizes and parses; errors say "what (line N)".
Result<Program> parse_template(std::string_view source);

}  // namespace tok::chat
