#include "chat/parser.hpp"

#include <utility>

#include "chat/lexer.hpp"
#include "chat/parser_state.hpp"

namespace tok::chat {

namespace parsing {

NodePtr Parser::any() {
  Depth d(*this);
  const Token& tk = t_[cur_];
  switch (tk.type) {
    case TokenType::kComment: {
      auto n = node(NodeKind::kComment, tk.pos);
      ++cur_;
      return n;
    }
    case TokenType::kText: {
      auto n = node(NodeKind::kText, tk.pos);
      n->str = tk.value;
      ++cur_;
      return n;
    }
    case TokenType::kOpenStatement: return statement();
    case TokenType::kOpenExpression: {
      ++cur_;
      auto e = expression();
      expect(TokenType::kCloseExpression, "'}}'");
      return e;
    }
    default: fail("unexpected '" + tk.value + "' outside a tag");
  }
}

NodePtr Parser::statement() {
  std::size_t p = pos();
  expect(TokenType::kOpenStatement, "'{%'");
  if (!is(TokenType::kIdentifier)) fail("expected a statement name after '{%'");
  std::string name = t_[cur_++].value;
  if (name == "set") return set_statement(p);
  if (name == "if") {
    auto n = if_statement(p);
    end_tag("endif");
    return n;
  }
  if (name == "for") {
    auto n = for_statement(p);
    end_tag("endfor");
    return n;
  }
  if (name == "macro") {
    auto n = macro_statement(p);
    end_tag("endmacro");
    return n;
  }
  if (name == "break" || name == "continue") {
    expect(TokenType::kCloseStatement, "'%}'");
    return node(name == "break" ? NodeKind::kBreak : NodeKind::kContinue, p);
  }
  if (name == "call") {
    auto n = node(NodeKind::kCallBlock, p);
    if (is(TokenType::kOpenParen)) n->a = args(true);
    auto callee = primary();
    if (callee->kind != NodeKind::kIdent) fail("expected a macro name after 'call'");
    n->x = call(std::move(callee));
    expect(TokenType::kCloseStatement, "'%}'");
    n->b = body_until({"endcall"}, "call");
    end_tag("endcall");
    return n;
  }
  if (name == "filter") {
    auto n = node(NodeKind::kFilterBlock, p);
    auto f = primary();
    if (f->kind == NodeKind::kIdent && is(TokenType::kOpenParen)) f = call(std::move(f));
    n->x = std::move(f);
    expect(TokenType::kCloseStatement, "'%}'");
    n->a = body_until({"endfilter"}, "filter");
    end_tag("endfilter");
    return n;
  }
  fail("unsupported statement '{% " + name + " %}'");
}

NodePtr Parser::set_statement(std::size_t p) {
  auto n = node(NodeKind::kSet, p);
  n->x = sequence(false);
  if (is(TokenType::kEquals)) {
    ++cur_;
    n->y = sequence(false);
  } else {
    expect(TokenType::kCloseStatement, "'%}' or '='");
    n->a = body_until({"endset"}, "set");
    expect(TokenType::kOpenStatement, "'{%'");
    expect_ident("endset");
  }
  expect(TokenType::kCloseStatement, "'%}'");
  return n;
}

NodePtr Parser::if_statement(std::size_t p) {
  Depth d(*this);
  auto n = node(NodeKind::kIf, p);
  n->x = expression();
  expect(TokenType::kCloseStatement, "'%}'");
  n->a = body_until({"elif", "else", "endif"}, "if");
  if (is_statement({"elif"})) {
    std::size_t q = pos();
    cur_ += 2;
    n->b.push_back(if_statement(q));
  } else if (is_statement({"else"})) {
    cur_ += 2;
    expect(TokenType::kCloseStatement, "'%}'");
    n->b = body_until({"endif"}, "if");
  }
  return n;
}

NodePtr Parser::for_statement(std::size_t p) {
  auto n = node(NodeKind::kFor, p);
  n->x = sequence(true);
  if (n->x->kind != NodeKind::kIdent && n->x->kind != NodeKind::kTuple)
    fail("expected a loop variable after 'for'");
  if (!is_ident("in")) fail("expected 'in' after the loop variable");
  ++cur_;
  auto iterable = expression();
  if (iterable->kind == NodeKind::kSelect) {
    n->y = std::move(iterable->x);
    n->z = std::move(iterable->y);
  } else {
    n->y = std::move(iterable);
  }
  expect(TokenType::kCloseStatement, "'%}'");
  n->a = body_until({"endfor", "else"}, "for");
  if (is_statement({"else"})) {
    cur_ += 2;
    expect(TokenType::kCloseStatement, "'%}'");
    n->b = body_until({"endfor"}, "for");
  }
  return n;
}

NodePtr Parser::macro_statement(std::size_t p) {
  auto n = node(NodeKind::kMacro, p);
  auto name = primary();
  if (name->kind != NodeKind::kIdent) fail("expected a macro name");
  n->str = name->str;
  n->a = args(true);
  expect(TokenType::kCloseStatement, "'%}'");
  n->b = body_until({"endmacro"}, "macro");
  return n;
}

NodePtr Parser::sequence(bool is_primary) {
  std::size_t p = pos();
  NodeList items;
  items.push_back(is_primary ? primary() : expression());
  if (!is(TokenType::kComma)) return std::move(items[0]);
  while (is(TokenType::kComma)) {
    ++cur_;
    items.push_back(is_primary ? primary() : expression());
  }
  auto n = node(NodeKind::kTuple, p);
  n->a = std::move(items);
  return n;
}

}  // namespace parsing

Result<Program> parse_template(std::string_view source) {
  Program prog;
  Source src = preprocess_template(source);
  TOK_ASSIGN(std::vector<Token> tokens, tokenize(src));
  prog.lines = std::move(src.line);
  try {
    prog.body = parsing::Parser(std::move(tokens)).program();
  } catch (const parsing::ParseError& e) {
    return make_error("{} (line {})", e.message, prog.line_of(e.pos));
  }
  return prog;
}

}  // namespace tok::chat
