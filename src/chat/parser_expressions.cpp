// Expressions of chat templates, by precedence from the conditional
// expression down to primaries (parser_state.hpp holds the grammar).
#include <charconv>
#include <cstdlib>
#include <set>
#include <utility>

#include "chat/parser_state.hpp"

namespace tok::chat::parsing {

NodePtr Parser::expression() {
  Depth d(*this);
  std::size_t p = pos();
  auto a = logical_or();
  if (!is_ident("if")) return a;
  ++cur_;
  auto cond = logical_or();
  if (is_ident("else")) {
    ++cur_;
    auto n = node(NodeKind::kTernary, p);
    n->x = std::move(cond);
    n->y = std::move(a);
    n->z = expression();
    return n;
  }
  auto n = node(NodeKind::kSelect, p);
  n->x = std::move(a);
  n->y = std::move(cond);
  return n;
}

NodePtr Parser::logical_or() {
  auto left = logical_and();
  Chain chain(*this);
  while (is_ident("or")) {
    chain.link();
    auto n = node(NodeKind::kBinary, pos());
    ++cur_;
    n->str = "or";
    n->x = std::move(left);
    n->y = logical_and();
    left = std::move(n);
  }
  return left;
}

NodePtr Parser::logical_and() {
  auto left = logical_not();
  Chain chain(*this);
  while (is_ident("and")) {
    chain.link();
    auto n = node(NodeKind::kBinary, pos());
    ++cur_;
    n->str = "and";
    n->x = std::move(left);
    n->y = logical_not();
    left = std::move(n);
  }
  return left;
}

NodePtr Parser::logical_not() {
  if (!is_ident("not")) return comparison();
  Depth d(*this);
  auto n = node(NodeKind::kUnary, pos());
  ++cur_;
  n->str = "not";
  n->x = logical_not();
  return n;
}

NodePtr Parser::comparison() {
  auto left = additive();
  Chain chain(*this);
  while (true) {
    chain.link();
    std::string op;
    std::size_t p = pos();
    if (is_ident("not") && is_ident("in", 1)) {
      op = "not in";
      cur_ += 2;
    } else if (is_ident("in")) {
      op = "in";
      ++cur_;
    } else if (is(TokenType::kComparison)) {
      op = t_[cur_++].value;
    } else {
      break;
    }
    auto n = node(NodeKind::kBinary, p);
    n->str = op;
    n->x = std::move(left);
    n->y = additive();
    left = std::move(n);
  }
  return left;
}

NodePtr Parser::additive() {
  auto left = multiplicative();
  Chain chain(*this);
  while (is(TokenType::kAdditive)) {
    chain.link();
    auto n = node(NodeKind::kBinary, pos());
    n->str = t_[cur_++].value;
    n->x = std::move(left);
    n->y = multiplicative();
    left = std::move(n);
  }
  return left;
}

NodePtr Parser::multiplicative() {
  auto left = power();
  Chain chain(*this);
  while (is(TokenType::kMultiplicative)) {
    chain.link();
    auto n = node(NodeKind::kBinary, pos());
    n->str = t_[cur_++].value;
    n->x = std::move(left);
    n->y = power();
    left = std::move(n);
  }
  return left;
}

NodePtr Parser::power() {
  auto left = test();
  Chain chain(*this);
  while (is(TokenType::kPower)) {
    chain.link();
    auto n = node(NodeKind::kBinary, pos());
    n->str = t_[cur_++].value;
    n->x = std::move(left);
    n->y = test();
    left = std::move(n);
  }
  return left;
}

NodePtr Parser::test() {
  auto operand = filter();
  Chain chain(*this);
  while (is_ident("is")) {
    chain.link();
    auto n = node(NodeKind::kTest, pos());
    ++cur_;
    if (is_ident("not")) {
      n->flag = true;
      ++cur_;
    }
    auto name = primary();
    if (name->kind != NodeKind::kIdent) fail("expected a test name after 'is'");
    n->str = name->str;
    n->x = std::move(operand);
    operand = std::move(n);
  }
  return operand;
}

NodePtr Parser::filter() {
  auto operand = unary_sign();
  Chain chain(*this);
  while (is(TokenType::kPipe)) {
    chain.link();
    auto n = node(NodeKind::kFilter, pos());
    ++cur_;
    auto f = primary();
    if (f->kind != NodeKind::kIdent) fail("expected a filter name after '|'");
    if (is(TokenType::kOpenParen)) f = call(std::move(f));
    n->x = std::move(operand);
    n->y = std::move(f);
    operand = std::move(n);
  }
  return operand;
}

NodePtr Parser::unary_sign() {
  if ((is(TokenType::kUnary) || is(TokenType::kAdditive)) &&
      (t_[cur_].value == "-" || t_[cur_].value == "+")) {
    Depth d(*this);
    auto n = node(NodeKind::kUnary, pos());
    n->str = t_[cur_++].value;
    n->x = unary_sign();
    return n;
  }
  return call_member();
}

NodePtr Parser::call_member() {
  auto m = member(primary());
  if (is(TokenType::kOpenParen)) return call(std::move(m));
  return m;
}

NodePtr Parser::call(NodePtr callee) {
  Depth d(*this);
  auto n = node(NodeKind::kCall, pos());
  n->x = std::move(callee);
  n->a = args(false);
  auto e = member(std::move(n));
  if (is(TokenType::kOpenParen)) e = call(std::move(e));
  return e;
}

NodeList Parser::args(bool parameters) {
  expect(TokenType::kOpenParen, "'('");
  NodeList out;
  std::set<std::string> names;
  bool saw_keyword = false, saw_spread = false;
  while (!is(TokenType::kCloseParen)) {
    if (cur_ >= t_.size()) fail("argument list is never closed");
    bool kw_spread = is(TokenType::kPower);
    bool spread = is(TokenType::kMultiplicative) && t_[cur_].value == "*";
    if (parameters && (kw_spread || spread)) fail("argument unpacking in a parameter list");
    std::size_t p = pos();
    if (kw_spread) {
      ++cur_;
      auto n = node(NodeKind::kKwSpread, p);
      n->x = expression();
      out.push_back(std::move(n));
      if (is(TokenType::kComma)) ++cur_;
      if (!is(TokenType::kCloseParen)) fail("'**' must be applied to the last argument");
      break;
    }
    NodePtr arg;
    if (spread) {
      if (saw_spread) fail("only one '*' argument unpacking is allowed");
      saw_spread = true;
      ++cur_;
      arg = node(NodeKind::kSpread, p);
      arg->x = expression();
    } else {
      arg = expression();
      if (is(TokenType::kEquals)) {
        ++cur_;
        if (arg->kind != NodeKind::kIdent) fail("expected an identifier before '='");
        auto kw = node(NodeKind::kKwarg, p);
        kw->str = arg->str;
        kw->x = expression();
        arg = std::move(kw);
      }
      if (parameters) {
        if (arg->kind != NodeKind::kIdent && arg->kind != NodeKind::kKwarg)
          fail("expected a parameter name");
        if (!names.insert(arg->str).second) fail("duplicate parameter '" + arg->str + "'");
      }
      if (arg->kind == NodeKind::kKwarg) {
        saw_keyword = true;
      } else if (saw_keyword) {
        fail(parameters ? "a parameter without default follows one with a default"
                        : "a positional argument follows a keyword argument");
      } else if (saw_spread) {
        fail("a positional argument follows '*' unpacking");
      }
    }
    out.push_back(std::move(arg));
    if (is(TokenType::kComma)) ++cur_;
  }
  ++cur_;
  return out;
}

NodePtr Parser::subscript() {
  std::size_t p = pos();
  NodeList parts;
  std::vector<bool> present;
  bool slice = false;
  while (!is(TokenType::kCloseBracket)) {
    if (cur_ >= t_.size()) fail("'[' is never closed");
    if (is(TokenType::kColon)) {
      parts.push_back(nullptr);
      ++cur_;
      slice = true;
    } else {
      parts.push_back(expression());
      if (is(TokenType::kColon)) {
        ++cur_;
        slice = true;
      }
    }
  }
  if (parts.empty()) fail("empty subscript '[]'");
  if (!slice) return std::move(parts[0]);
  if (parts.size() > 3) fail("a slice takes at most three parts");
  auto n = node(NodeKind::kSlice, p);
  parts.resize(3);
  n->x = std::move(parts[0]);
  n->y = std::move(parts[1]);
  n->z = std::move(parts[2]);
  return n;
}

NodePtr Parser::member(NodePtr object) {
  Chain chain(*this);
  while (is(TokenType::kDot) || is(TokenType::kOpenBracket)) {
    chain.link();
    auto n = node(NodeKind::kMember, pos());
    bool computed = is(TokenType::kOpenBracket);
    ++cur_;
    if (computed) {
      n->y = subscript();
      expect(TokenType::kCloseBracket, "']'");
    } else {
      n->y = primary();
      if (n->y->kind != NodeKind::kIdent && n->y->kind != NodeKind::kInt)
        fail("expected a name after '.'");
    }
    n->flag = computed;
    n->x = std::move(object);
    object = std::move(n);
  }
  return object;
}

NodePtr Parser::primary() {
  Depth d(*this);
  if (cur_ >= t_.size()) fail("unexpected end of the template");
  const Token& tk = t_[cur_++];
  switch (tk.type) {
    case TokenType::kNumber: {
      if (tk.value.find('.') != std::string::npos) {
        auto n = node(NodeKind::kFloat, tk.pos);
        n->fval = std::strtod(tk.value.c_str(), nullptr);
        return n;
      }
      // An integer past 64 bits is a float, as in JavaScript.
      auto n = node(NodeKind::kInt, tk.pos);
      const char* b = tk.value.data();
      const char* e = b + tk.value.size();
      if (b != e && *b == '+') ++b;  // a signed literal after an operator
      auto r = std::from_chars(b, e, n->ival);
      if (r.ec != std::errc() || r.ptr != e) {
        n->kind = NodeKind::kFloat;
        n->fval = std::strtod(tk.value.c_str(), nullptr);
      }
      return n;
    }
    case TokenType::kString: {
      auto n = node(NodeKind::kString, tk.pos);
      n->str = tk.value;
      while (is(TokenType::kString)) n->str += t_[cur_++].value;  // adjacent literals join
      return n;
    }
    case TokenType::kIdentifier: {
      auto n = node(NodeKind::kIdent, tk.pos);
      n->str = tk.value;
      return n;
    }
    case TokenType::kOpenParen: {
      auto e = sequence(false);
      expect(TokenType::kCloseParen, "')'");
      return e;
    }
    case TokenType::kOpenBracket: {
      auto n = node(NodeKind::kArray, tk.pos);
      while (!is(TokenType::kCloseBracket)) {
        if (cur_ >= t_.size()) fail("'[' is never closed");
        n->a.push_back(expression());
        if (is(TokenType::kComma)) ++cur_;
      }
      ++cur_;
      return n;
    }
    case TokenType::kOpenBrace: {
      auto n = node(NodeKind::kObject, tk.pos);
      while (!is(TokenType::kCloseBrace)) {
        if (cur_ >= t_.size()) fail("'{' is never closed");
        n->a.push_back(expression());
        expect(TokenType::kColon, "':' between key and value");
        n->b.push_back(expression());
        if (is(TokenType::kComma)) ++cur_;
      }
      ++cur_;
      return n;
    }
    default: --cur_; fail("unexpected '" + tk.value + "'");
  }
}

}  // namespace tok::chat::parsing
