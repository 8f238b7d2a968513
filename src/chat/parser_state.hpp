// The chat-template parser's state and grammar, shared by parser.cpp
// (template text and statements) and parser_expressions.cpp (expressions,
// by precedence). Private to the chat module: parser.hpp is the interface.
#pragma once

#include <string>
#include <vector>

#include "chat/ast.hpp"
#include "chat/lexer.hpp"
#include "chat/parser.hpp"

namespace tok::chat::parsing {

struct ParseError {
  std::string message;
  std::size_t pos;
};

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : t_(std::move(tokens)) {}

  NodeList program() {
    NodeList body;
    while (cur_ < t_.size()) body.push_back(any());
    return body;
  }

 private:
  // Guards recursion: each nested construct takes one level.
  struct Depth {
    explicit Depth(Parser& p) : p_(p) {
      if (++p_.depth_ > kMaxNesting)
        p_.fail("template nests deeper than " + std::to_string(kMaxNesting) + " levels");
    }
    ~Depth() { --p_.depth_; }
    Parser& p_;
  };

  // A left-deep chain (a + b + c, a.b.c) deepens the tree without
  // recursing here; each link counts as a level until the chain ends.
  struct Chain {
    explicit Chain(Parser& p) : p_(p) {}
    void link() {
      ++added_;
      if (++p_.depth_ > kMaxNesting)
        p_.fail("template nests deeper than " + std::to_string(kMaxNesting) + " levels");
    }
    ~Chain() { p_.depth_ -= added_; }
    Parser& p_;
    int added_ = 0;
  };

  [[noreturn]] void fail(const std::string& msg) const {
    std::size_t pos = cur_ < t_.size() ? t_[cur_].pos : t_.empty() ? 0 : t_.back().pos;
    throw ParseError{msg, pos};
  }
  std::size_t pos() const {
    return cur_ < t_.size() ? t_[cur_].pos : t_.empty() ? 0 : t_.back().pos;
  }
  bool is(TokenType type, std::size_t ahead = 0) const {
    return cur_ + ahead < t_.size() && t_[cur_ + ahead].type == type;
  }
  bool is_ident(std::string_view name, std::size_t ahead = 0) const {
    return is(TokenType::kIdentifier, ahead) && t_[cur_ + ahead].value == name;
  }
  bool is_statement(std::initializer_list<std::string_view> names) const {
    if (!is(TokenType::kOpenStatement) || !is(TokenType::kIdentifier, 1)) return false;
    for (auto n : names) {
      if (t_[cur_ + 1].value == n) return true;
    }
    return false;
  }
  const Token& expect(TokenType type, const char* what) {
    if (!is(type))
      fail(std::string("expected ") + what +
           (cur_ < t_.size() ? ", got '" + t_[cur_].value + "'" : " before the end"));
    return t_[cur_++];
  }
  void expect_ident(const char* name) {
    if (!is_ident(name)) fail(std::string("expected '") + name + "'");
    ++cur_;
  }
  void end_tag(const char* name) {
    expect(TokenType::kOpenStatement, "'{%'");
    expect_ident(name);
    expect(TokenType::kCloseStatement, "'%}'");
  }
  // Statements until one of `names` opens a tag; the end of the template is an error.
  NodeList body_until(std::initializer_list<std::string_view> names, const char* construct) {
    NodeList body;
    while (!is_statement(names)) {
      if (cur_ >= t_.size()) fail(std::string("'{% ") + construct + " %}' is never closed");
      body.push_back(any());
    }
    return body;
  }
  NodePtr node(NodeKind k, std::size_t p) { return std::make_unique<Node>(k, p); }

  NodePtr any();
  NodePtr statement();
  NodePtr set_statement(std::size_t p);
  NodePtr if_statement(std::size_t p);
  NodePtr for_statement(std::size_t p);
  NodePtr macro_statement(std::size_t p);
  NodePtr sequence(bool primary);
  NodePtr expression();
  NodePtr logical_or();
  NodePtr logical_and();
  NodePtr logical_not();
  NodePtr comparison();
  NodePtr additive();
  NodePtr multiplicative();
  NodePtr power();
  NodePtr test();
  NodePtr filter();
  NodePtr unary_sign();
  NodePtr call_member();
  NodePtr call(NodePtr callee);
  NodeList args(bool parameters);
  NodePtr member(NodePtr object);
  NodePtr subscript();
  NodePtr primary();

  std::vector<Token> t_;
  std::size_t cur_ = 0;
  int depth_ = 0;
};

}  // namespace tok::chat::parsing
