// Value: what a chat-template expression evaluates to, with the semantics of
// @huggingface/jinja (the engine transformers.js uses, and the reference tok
// is checked against): undefined and none are distinct, arrays and objects
// are shared by reference (a namespace set inside a loop is seen after it),
// objects keep insertion order, and a float with no fraction prints "2.0".
//
// A template can nest values as deep as its work budget allows (a list
// wrapped in a list 300,000 times) and make a namespace hold itself, so
// nothing here recurses on a value's depth: a value is freed with an explicit
// stack, and printed (to_json) with one, bounded by PrintLimits.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tok::chat {

struct Value;
using Array = std::vector<Value>;
struct Object;
struct Function;

// An error while rendering, caught by Template::render, which adds the line.
struct RenderError {
  std::string message;
};

enum class Kind {
  kUndefined,
  kNone,
  kBool,
  kInt,
  kFloat,
  kString,
  kArray,
  kObject,
  kNamespace,
  kFunction
};

struct Value {
  Kind kind = Kind::kUndefined;
  bool b = false;
  std::int64_t i = 0;
  double f = 0;
  std::string s;
  std::shared_ptr<Array> arr;
  std::shared_ptr<Object> obj;  // kObject and kNamespace
  std::shared_ptr<Function> fn;

  Value() = default;
  Value(const Value&) = default;
  Value(Value&&) noexcept = default;
  // Assignment and destruction free what the old value held last with an
  // explicit stack (release), never by recursion on its depth.
  Value& operator=(const Value& o) {
    Value old(o);
    swap(old);
    return *this;
  }
  Value& operator=(Value&& o) noexcept {
    Value old(std::move(o));
    swap(old);
    return *this;
  }
  ~Value() {
    if (arr || obj || fn) release();
  }
  void swap(Value& o) noexcept;

  static Value none() {
    Value v;
    v.kind = Kind::kNone;
    return v;
  }
  static Value boolean(bool x) {
    Value v;
    v.kind = Kind::kBool;
    v.b = x;
    return v;
  }
  static Value integer(std::int64_t x) {
    Value v;
    v.kind = Kind::kInt;
    v.i = x;
    return v;
  }
  static Value real(double x) {
    Value v;
    v.kind = Kind::kFloat;
    v.f = x;
    return v;
  }
  static Value string(std::string x) {
    Value v;
    v.kind = Kind::kString;
    v.s = std::move(x);
    return v;
  }
  static Value array(Array items);
  static Value object(Object o);
  static Value ns(Object o);
  // owner: the object a bound method (dict.get) reads, kept alive by the
  // function; the call itself captures only a plain pointer to it.
  static Value function(std::function<Value(std::vector<Value>&, Object&)> f,
                        std::shared_ptr<Object> owner = nullptr);

  bool is_undefined() const { return kind == Kind::kUndefined; }
  bool is_none() const { return kind == Kind::kNone; }
  bool is_number() const { return kind == Kind::kInt || kind == Kind::kFloat; }
  bool is_mapping() const { return kind == Kind::kObject || kind == Kind::kNamespace; }
  double number() const {
    return kind == Kind::kInt ? static_cast<double>(i) : kind == Kind::kFloat ? f : b ? 1 : 0;
  }

 private:
  void release() noexcept;
};

// Insertion-ordered map (JS Map): templates print tojson in this order.
struct Object {
  std::vector<std::pair<std::string, Value>> entries;
  const Value* find(std::string_view key) const;
  void set(const std::string& key, Value v);
  std::size_t size() const { return entries.size(); }
};

struct Function {
  // Positional arguments, then keyword arguments (empty when none).
  std::function<Value(std::vector<Value>&, Object&)> call;
  std::shared_ptr<Object> owner;
};

std::string_view kind_name(Kind k);
// Bytes a value holds itself (its string, not what its array or object
// shares): what storing one more copy of it costs.
std::size_t value_bytes(const Value& v);

// Bounds on printing a value: levels of nesting left (the render's depth
// budget minus its current depth) and bytes of text. Past one, printing
// throws RenderError ("value nests too deeply": a namespace that holds
// itself is one; or the output limit).
struct PrintLimits {
  int max_depth = 1000;
  std::size_t max_bytes = std::size_t{64} << 20;
};
// Jinja truthiness: empty strings, arrays and objects are false.
bool truthy(const Value& v);
// What {{ v }} prints (none and undefined print nothing; the caller skips them).
std::string to_output(const Value& v, const PrintLimits& lim);
// "the template's output exceeds N MiB", the one message of that bound.
std::string output_limit_message(std::size_t max_bytes);
// What JavaScript's String(v.value) gives: the operands of + and ~.
std::string to_js_string(const Value& v, const PrintLimits& lim);
// A number as JavaScript prints it (shortest round trip, "1e+21").
std::string js_number(double d);

struct JsonOptions {
  int indent = 0;  // 0: one line
  bool ensure_ascii = false;
  bool sort_keys = false;
  bool custom_separators = false;
  std::string item_sep, key_sep;
};
// The tojson filter; undefined_as_null = false is the form str() of an
// array or object prints. Iterative: a value's depth costs no native stack.
std::string to_json(const Value& v, const JsonOptions& o, const PrintLimits& lim,
                    bool undefined_as_null = true);

// A JSON document as template input (integral floats become integers, as
// JavaScript numbers do).
Value from_json(const nlohmann::json& j);

// JavaScript's loose == on the values (undefined == none, true == 1, arrays
// and objects by identity) and strict === for `in`.
bool loose_equal(const Value& a, const Value& b);
bool strict_equal(const Value& a, const Value& b);

}  // namespace tok::chat
