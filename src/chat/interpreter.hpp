// Interpreter: renders a parsed chat template, with @huggingface/jinja's
// scoping (a for loop has its own scope, an if does not; set writes the
// current scope; macros see the caller's variables) and bounds on work,
// output size and call depth, so a hostile template fails with an error
// instead of hanging or exhausting memory.
//
// Errors inside evaluation are thrown as RenderError and caught at the one
// entry point (render_template), which turns them into a Result naming the
// template line; throwing keeps the tree walk readable.
#pragma once

#include <cstddef>
#include <string>
#include <unordered_map>

#include "chat/ast.hpp"
#include "chat/value.hpp"

namespace tok::chat {

struct Limits {
  std::size_t max_output = std::size_t{64} << 20;  // bytes of any string built
  std::size_t max_steps = 5'000'000;               // nodes evaluated and loop iterations
  int max_call_depth = 100;                        // nested macro calls
  std::size_t max_range = 1'000'000;               // items range() may make
};

struct RenderError {
  std::string message;
};

class Env {
 public:
  explicit Env(Env* parent = nullptr) : parent_(parent) {}
  // The variable's value, or undefined.
  Value lookup(const std::string& name) const;
  void set(const std::string& name, Value v) { vars_[name] = std::move(v); }

 private:
  Env* parent_;
  std::unordered_map<std::string, Value> vars_;
};

class Interpreter {
 public:
  explicit Interpreter(const Limits& limits) : limits_(limits) {}
  // Renders the template; throws RenderError.
  std::string run(const Program& p, Env& globals);
  std::size_t error_pos() const { return pos_; }

  // Evaluation, shared with the filters (filters.cpp).
  Value eval(const Node& n, Env& env);
  std::string block(const NodeList& body, Env& env);
  void args(const NodeList& nodes, Env& env, std::vector<Value>& pos, Object& kw);
  Value apply_filter(const Value& operand, const Node& filter, Env& env);
  bool apply_test(const std::string& name, const Value& operand);
  Value member(const Value& object, const Value& property);
  // Refuses a string past the output limit.
  void check_size(std::size_t bytes) const;
  [[noreturn]] void fail(const std::string& message) const { throw RenderError{message}; }
  const Limits& limits() const { return limits_; }
  // The scope a function is called from (macros see their caller's variables).
  Env* calling_env() const { return calling_env_; }

 private:
  Value binary(const Node& n, Env& env);
  Value unary(const Node& n, Env& env);
  Value member_expr(const Node& n, Env& env);
  Value slice(const Value& object, const Node& s, Env& env);
  Value call(const Node& n, Env& env);
  Value literal(const Node& n, Env& env);
  void set(const Node& n, Env& env);
  std::string for_loop(const Node& n, Env& env);
  void macro(const Node& n, Env& env);
  std::string call_block(const Node& n, Env& env);
  void bind_params(const NodeList& params, const std::string& name, std::vector<Value>& pos, Object& kw,
                   Env& scope);

  Limits limits_;
  std::size_t steps_ = 0;
  std::size_t pos_ = 0;  // the node being evaluated, for error messages
  int call_depth_ = 0;
  Env* calling_env_ = nullptr;
};

}  // namespace tok::chat
