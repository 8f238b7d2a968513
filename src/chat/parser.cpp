#include "chat/parser.hpp"

#include <cstdlib>
#include <set>
#include <utility>

#include "chat/lexer.hpp"

namespace tok::chat {

namespace {

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
      if (++p_.depth_ > kMaxNesting) p_.fail("template nests deeper than " + std::to_string(kMaxNesting) + " levels");
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
      if (++p_.depth_ > kMaxNesting) p_.fail("template nests deeper than " + std::to_string(kMaxNesting) + " levels");
    }
    ~Chain() { p_.depth_ -= added_; }
    Parser& p_;
    int added_ = 0;
  };

  [[noreturn]] void fail(const std::string& msg) const {
    std::size_t pos = cur_ < t_.size() ? t_[cur_].pos : t_.empty() ? 0 : t_.back().pos;
    throw ParseError{msg, pos};
  }
  std::size_t pos() const { return cur_ < t_.size() ? t_[cur_].pos : t_.empty() ? 0 : t_.back().pos; }
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
    if (!is(type)) fail(std::string("expected ") + what + (cur_ < t_.size() ? ", got '" + t_[cur_].value + "'" : " before the end"));
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
  if (n->x->kind != NodeKind::kIdent && n->x->kind != NodeKind::kTuple) fail("expected a loop variable after 'for'");
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
  if ((is(TokenType::kUnary) || is(TokenType::kAdditive)) && (t_[cur_].value == "-" || t_[cur_].value == "+")) {
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
        if (arg->kind != NodeKind::kIdent && arg->kind != NodeKind::kKwarg) fail("expected a parameter name");
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
      if (n->y->kind != NodeKind::kIdent && n->y->kind != NodeKind::kInt) fail("expected a name after '.'");
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
      auto n = node(NodeKind::kInt, tk.pos);
      double v = std::strtod(tk.value.c_str(), nullptr);
      if (v > 9.2e18 || v < -9.2e18) {
        n->kind = NodeKind::kFloat;
        n->fval = v;
      } else {
        n->ival = std::strtoll(tk.value.c_str(), nullptr, 10);
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

}  // namespace

Result<Program> parse_template(std::string_view source) {
  Program prog;
  Source src = preprocess_template(source);
  TOK_ASSIGN(std::vector<Token> tokens, tokenize(src));
  prog.lines = std::move(src.line);
  try {
    prog.body = Parser(std::move(tokens)).program();
  } catch (const ParseError& e) {
    return make_error("line {}: {}", prog.line_of(e.pos), e.message);
  }
  return prog;
}

}  // namespace tok::chat
