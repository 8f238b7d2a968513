// Value: what a chat-template expression evaluates to, with the semantics of
// @huggingface/jinja (the engine transformers.js uses, and the reference tok
// is checked against): undefined and none are distinct, arrays and objects
// are shared by reference (a namespace set inside a loop is seen after it),
// objects keep insertion order, and a float with no fraction prints "2.0".
#pragma once

#include <nlohmann/json.hpp>

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

enum class Kind { kUndefined, kNone, kBool, kInt, kFloat, kString, kArray, kObject, kNamespace, kFunction };

struct Value {
  Kind kind = Kind::kUndefined;
  bool b = false;
  std::int64_t i = 0;
  double f = 0;
  std::string s;
  std::shared_ptr<Array> arr;
  std::shared_ptr<Object> obj;  // kObject and kNamespace
  std::shared_ptr<Function> fn;

  static Value none() { Value v; v.kind = Kind::kNone; return v; }
  static Value boolean(bool x) { Value v; v.kind = Kind::kBool; v.b = x; return v; }
  static Value integer(std::int64_t x) { Value v; v.kind = Kind::kInt; v.i = x; return v; }
  static Value real(double x) { Value v; v.kind = Kind::kFloat; v.f = x; return v; }
  static Value string(std::string x) { Value v; v.kind = Kind::kString; v.s = std::move(x); return v; }
  static Value array(Array items);
  static Value object(Object o);
  static Value ns(Object o);
  static Value function(std::function<Value(std::vector<Value>&, Object&)> f);

  bool is_undefined() const { return kind == Kind::kUndefined; }
  bool is_none() const { return kind == Kind::kNone; }
  bool is_number() const { return kind == Kind::kInt || kind == Kind::kFloat; }
  bool is_mapping() const { return kind == Kind::kObject || kind == Kind::kNamespace; }
  double number() const { return kind == Kind::kInt ? static_cast<double>(i) : kind == Kind::kFloat ? f : b ? 1 : 0; }
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
};

std::string_view kind_name(Kind k);
// Jinja truthiness: empty strings, arrays and objects are false.
bool truthy(const Value& v);
// What {{ v }} prints (none and undefined print nothing; the caller skips them).
std::string to_output(const Value& v);
// What JavaScript's String(v.value) gives: the operands of + and ~.
std::string to_js_string(const Value& v);
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
// array or object prints.
std::string to_json(const Value& v, const JsonOptions& o, int depth = 0, bool undefined_as_null = true);

// A JSON document as template input (integral floats become integers, as
// JavaScript numbers do).
Value from_json(const nlohmann::json& j);

// JavaScript's loose == on the values (undefined == none, true == 1, arrays
// and objects by identity) and strict === for `in`.
bool loose_equal(const Value& a, const Value& b);
bool strict_equal(const Value& a, const Value& b);

}  // namespace tok::chat
