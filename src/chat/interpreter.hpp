// Interpreter: renders a parsed chat template, with @huggingface/jinja's
// scoping (a for loop has its own scope, an if does not; set writes the
// current scope; macros see the caller's variables).
//
// A template is untrusted input (a GGUF's tokenizer.chat_template), so a
// render has one budget that bounds time, memory and native stack together:
//   work    steps weighted by what each does: a node evaluated or a loop
//           iteration is one, a filter pays per item it handles (and `unique`
//           per comparison), strings and printing pay per kBytesPerStep
//           bytes (code points, which become small strings, per 16 bytes);
//   memory  bytes of the values the template builds and stores (strings,
//           arrays, objects), counted as they are made;
//   depth   one counter for calls, nested blocks and expressions, and the
//           nesting of a value being printed, checked against the thread's
//           real stack as well.
// Values free and print deep structures without recursion (value.hpp).
//
// Errors inside evaluation are thrown as RenderError and caught at the one
// entry point (Template::render), which turns them into a Result naming the
// template line; throwing keeps the tree walk readable.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "chat/ast.hpp"
#include "chat/value.hpp"

namespace tok::chat {

// Bytes copied for one step of work: a node's evaluation costs about what
// copying 256 bytes does.
inline constexpr std::size_t kBytesPerStep = 256;

struct Limits {
  std::size_t max_output = std::size_t{64} << 20;   // bytes of any string built
  std::size_t max_steps = 5'000'000;                // units of work (see above)
  std::size_t max_memory = std::size_t{256} << 20;  // bytes of values built and stored
  int max_depth = 1000;                             // calls, nesting and value depth together
  std::size_t max_range = 1'000'000;                // items range() may make
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
  Interpreter(const Interpreter&) = delete;
  Interpreter& operator=(const Interpreter&) = delete;
  // Empties the namespaces the render made, so that one holding itself is
  // freed too.
  ~Interpreter();
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
  // Budget: `units` of work; `bytes` copied (work); a value of `bytes`
  // built and kept (memory, and work as copied); a value printed within the
  // depth left.
  void work(std::size_t units);
  void copied(std::size_t bytes) { work(bytes / kBytesPerStep); }
  void built(std::size_t bytes);
  PrintLimits print_limits() const;
  // A namespace, emptied when the render ends (cycles through it are cut).
  Value make_namespace(Object o);
  [[noreturn]] void fail(const std::string& message) const { throw RenderError{message}; }
  const Limits& limits() const { return limits_; }
  // The scope a function is called from (macros see their caller's variables).
  Env* calling_env() const { return calling_env_; }

 private:
  // One level of the depth budget, for as long as it lives.
  class Nest {
   public:
    explicit Nest(Interpreter& in);
    ~Nest() { --in_.depth_; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;

   private:
    Interpreter& in_;
  };

  Value binary(const Node& n, Env& env);
  Value numeric(const std::string& op, const Value& l, const Value& r);
  Value call_function(const Value& fn, std::vector<Value>& pos, Object& kw, Env* calling_env);
  Value unary(const Node& n, Env& env);
  Value member_expr(const Node& n, Env& env);
  Value slice(const Value& object, const Node& s, Env& env);
  Value call(const Node& n, Env& env);
  Value literal(const Node& n, Env& env);
  void set(const Node& n, Env& env);
  std::string for_loop(const Node& n, Env& env);
  void macro(const Node& n, Env& env);
  std::string call_block(const Node& n, Env& env);
  void bind_params(const NodeList& params, const std::string& name, std::vector<Value>& pos,
                   Object& kw, Env& scope);

  Limits limits_;
  std::size_t steps_ = 0;
  std::size_t bytes_ = 0;
  std::size_t pos_ = 0;  // the node being evaluated, for error messages
  int depth_ = 0;
  const char* stack_floor_ = nullptr;  // the lowest frame address allowed (null: unknown)
  Env* calling_env_ = nullptr;
  std::vector<std::weak_ptr<Object>> namespaces_;
};

}  // namespace tok::chat
