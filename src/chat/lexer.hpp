// Lexer of chat templates: the token stream of @huggingface/jinja's
// tokenize(), including its preprocessing (one trailing newline dropped,
// lstrip_blocks and trim_blocks as transformers sets them, {% generation %}
// tags removed) and the {%- -%} whitespace control.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace tok::chat {

enum class TokenType {
  kText,
  kNumber,
  kString,
  kIdentifier,
  kEquals,
  kOpenParen,
  kCloseParen,
  kOpenStatement,
  kCloseStatement,
  kOpenExpression,
  kCloseExpression,
  kOpenBracket,
  kCloseBracket,
  kOpenBrace,
  kCloseBrace,
  kComma,
  kDot,
  kColon,
  kPipe,
  kAdditive,
  kMultiplicative,
  kPower,
  kComparison,
  kUnary,
  kComment
};

struct Token {
  TokenType type;
  std::string value;
  std::size_t pos = 0;  // byte offset in the preprocessed template
};

// The template after preprocessing (what positions refer to), with the
// line of the original template each byte came from: trim_blocks removes
// newlines, and errors must name the line the user sees.
struct Source {
  std::string text;
  std::vector<std::uint32_t> line;  // (text.size() + 1) 1-based lines; the last is the end
  std::size_t line_of(std::size_t pos) const;
};

Source preprocess_template(std::string_view source);
// Tokens of a preprocessed template; errors say "what (line N)".
Result<std::vector<Token>> tokenize(const Source& src);

}  // namespace tok::chat
