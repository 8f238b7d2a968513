#include "chat/value.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "chat/js_text.hpp"

namespace tok::chat {

Value Value::array(Array items) {
  Value v;
  v.kind = Kind::kArray;
  v.arr = std::make_shared<Array>(std::move(items));
  return v;
}

Value Value::object(Object o) {
  Value v;
  v.kind = Kind::kObject;
  v.obj = std::make_shared<Object>(std::move(o));
  return v;
}

Value Value::ns(Object o) {
  Value v = object(std::move(o));
  v.kind = Kind::kNamespace;
  return v;
}

Value Value::function(std::function<Value(std::vector<Value>&, Object&)> f,
                      std::shared_ptr<Object> owner) {
  Value v;
  v.kind = Kind::kFunction;
  v.fn = std::make_shared<Function>(Function{std::move(f), std::move(owner)});
  return v;
}

void Value::swap(Value& o) noexcept {
  std::swap(kind, o.kind);
  std::swap(b, o.b);
  std::swap(i, o.i);
  std::swap(f, o.f);
  s.swap(o.s);
  arr.swap(o.arr);
  obj.swap(o.obj);
  fn.swap(o.fn);
}

// Frees what this value holds last, with an explicit stack: every pointer to
// an array, object or method owner is moved to `pending`; one popped while it
// is the last reference has its items' pointers moved out first, so freeing
// it destroys only shallow values. A pointer that is not the last is just
// dropped (a decrement), so a shared subtree is expanded by its last owner.
void Value::release() noexcept {
  bool last =
      (arr && arr.use_count() == 1) || (obj && obj.use_count() == 1) || (fn && fn.use_count() == 1);
  if (!last) return;
  struct Pending {
    std::shared_ptr<Array> arr;
    std::shared_ptr<Object> obj;
    std::shared_ptr<Function> fn;
  };
  try {
    std::vector<Pending> pending;
    auto take = [&](Value& v) {
      if (v.arr || v.obj || v.fn)
        pending.push_back({std::move(v.arr), std::move(v.obj), std::move(v.fn)});
    };
    take(*this);
    while (!pending.empty()) {
      Pending p = std::move(pending.back());
      pending.pop_back();
      if (p.arr && p.arr.use_count() == 1) {
        for (Value& e : *p.arr) take(e);
      }
      if (p.obj && p.obj.use_count() == 1) {
        for (auto& entry : p.obj->entries) take(entry.second);
      }
      if (p.fn && p.fn.use_count() == 1 && p.fn->owner)
        pending.push_back({nullptr, std::move(p.fn->owner), nullptr});
    }
  } catch (const std::bad_alloc&) {
    // No memory for the stack: what is left is freed by the members'
    // destructors, recursively.
  }
}

std::size_t value_bytes(const Value& v) {
  return sizeof(Value) + (v.kind == Kind::kString ? v.s.size() : 0);
}

const Value* Object::find(std::string_view key) const {
  for (const auto& [k, v] : entries) {
    if (k == key) return &v;
  }
  return nullptr;
}

void Object::set(const std::string& key, Value v) {
  for (auto& [k, old] : entries) {
    if (k == key) {
      old = std::move(v);
      return;
    }
  }
  entries.emplace_back(key, std::move(v));
}

std::string_view kind_name(Kind k) {
  switch (k) {
    case Kind::kUndefined: return "undefined";
    case Kind::kNone: return "none";
    case Kind::kBool: return "boolean";
    case Kind::kInt: return "integer";
    case Kind::kFloat: return "float";
    case Kind::kString: return "string";
    case Kind::kArray: return "array";
    case Kind::kObject: return "object";
    case Kind::kNamespace: return "namespace";
    case Kind::kFunction: return "function";
  }
  return "?";
}

bool truthy(const Value& v) {
  switch (v.kind) {
    case Kind::kUndefined:
    case Kind::kNone: return false;
    case Kind::kBool: return v.b;
    case Kind::kInt: return v.i != 0;
    case Kind::kFloat: return v.f != 0 && !std::isnan(v.f);
    case Kind::kString: return !v.s.empty();
    case Kind::kArray: return !v.arr->empty();
    case Kind::kObject: return v.obj->size() > 0;
    case Kind::kNamespace:
    case Kind::kFunction: return true;
  }
  return false;
}

std::string js_number(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  if (d == 0) return "0";
  double a = std::fabs(d);
  if (a >= 1e-6 && a < 1e21) {
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::fixed);
    std::string s(buf, r.ptr);
    // Shortest fixed form: to_chars(fixed) without precision is shortest
    // round trip already.
    return s;
  }
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string s(buf, r.ptr);
  // C++ writes "1e+21" / "1.5e-07"; JavaScript writes "1e+21" / "1.5e-7".
  auto e = s.find('e');
  std::string mant = s.substr(0, e), exp = s.substr(e + 1);
  char sign = exp[0];
  std::string digits = exp.substr(1);
  while (digits.size() > 1 && digits[0] == '0') digits.erase(0, 1);
  return mant + "e" + sign + digits;
}

std::string to_js_string(const Value& v, const PrintLimits& lim) {
  switch (v.kind) {
    case Kind::kUndefined: return "undefined";
    case Kind::kNone: return "null";
    case Kind::kBool: return v.b ? "true" : "false";
    case Kind::kInt: return std::to_string(v.i);
    case Kind::kFloat: return js_number(v.f);
    case Kind::kString: return v.s;
    case Kind::kArray: {
      // Array.prototype.toString: the elements' String() joined by commas.
      if (lim.max_depth < 1) throw RenderError{"value nests too deeply"};
      PrintLimits inner{lim.max_depth - 1, lim.max_bytes};
      std::string out;
      for (std::size_t k = 0; k < v.arr->size(); ++k) {
        if (k) out += ',';
        out += to_output((*v.arr)[k], inner);
        if (out.size() > lim.max_bytes) throw RenderError{output_limit_message(lim.max_bytes)};
      }
      return out;
    }
    case Kind::kObject:
    case Kind::kNamespace: return "[object Map]";
    case Kind::kFunction: return "[function]";
  }
  return "";
}

std::string to_output(const Value& v, const PrintLimits& lim) {
  switch (v.kind) {
    case Kind::kFloat:
      if (v.f == 0 && std::signbit(v.f)) return "-0.0";
      if (std::isfinite(v.f) && v.f == std::floor(v.f) && std::fabs(v.f) < 1e21) {
        return js_number(v.f) + ".0";
      }
      return js_number(v.f);
    case Kind::kArray:
    case Kind::kObject:
    case Kind::kNamespace: return to_json(v, {}, lim, false);
    default: return to_js_string(v, lim);
  }
}

std::string output_limit_message(std::size_t max_bytes) {
  return "the template's output exceeds " + std::to_string(max_bytes >> 20) + " MiB";
}

namespace {

// A scalar's JSON text, or false for an array or object.
bool scalar_json(const Value& v, const JsonOptions& o, bool undefined_as_null, std::string& out) {
  switch (v.kind) {
    case Kind::kNone: out += "null"; return true;
    case Kind::kUndefined: out += undefined_as_null ? "null" : "undefined"; return true;
    case Kind::kBool: out += v.b ? "true" : "false"; return true;
    case Kind::kInt: out += std::to_string(v.i); return true;
    case Kind::kFloat: out += std::isfinite(v.f) ? js_number(v.f) : "null"; return true;
    case Kind::kString: out += json_quote(v.s, o.ensure_ascii); return true;
    case Kind::kFunction: out += "undefined"; return true;
    default: return false;
  }
}

}  // namespace

std::string to_json(const Value& root, const JsonOptions& o, const PrintLimits& lim,
                    bool undefined_as_null) {
  const std::string item_sep = o.custom_separators ? o.item_sep : o.indent ? "," : ", ";
  const std::string key_sep = o.custom_separators ? o.key_sep : ": ";
  const std::string pad = o.indent ? std::string(static_cast<std::size_t>(o.indent), ' ') : "";
  // One frame per open array or object: the next item to print and, for an
  // object, its entries in print order.
  struct Frame {
    const Value* v;
    std::size_t next = 0;
    std::vector<const std::pair<std::string, Value>*> entries;
  };
  std::vector<Frame> stack;
  std::string out;
  auto open = [&](const Value& v) {
    if (scalar_json(v, o, undefined_as_null, out)) return;
    if (static_cast<int>(stack.size()) >= lim.max_depth) {
      throw RenderError{"value nests too deeply (more than " + std::to_string(lim.max_depth) +
                        " levels; does a namespace hold itself?)"};
    }
    Frame f{&v, 0, {}};
    if (v.kind == Kind::kArray) {
      out += '[';
    } else {
      for (const auto& e : v.obj->entries) f.entries.push_back(&e);
      if (o.sort_keys) {
        std::stable_sort(f.entries.begin(), f.entries.end(),
                         [](auto* a, auto* b) { return a->first < b->first; });
      }
      out += '{';
    }
    stack.push_back(std::move(f));
  };
  auto newline = [&](std::size_t depth) {
    out += '\n';
    for (std::size_t d = 0; d < depth; ++d) out += pad;
  };
  open(root);
  while (!stack.empty()) {
    if (out.size() > lim.max_bytes) throw RenderError{output_limit_message(lim.max_bytes)};
    Frame& f = stack.back();
    bool array = f.v->kind == Kind::kArray;
    std::size_t n = array ? f.v->arr->size() : f.entries.size();
    if (f.next == n) {
      if (o.indent && n) newline(stack.size() - 1);
      out += array ? ']' : '}';
      stack.pop_back();
      continue;
    }
    if (f.next) out += item_sep;
    if (o.indent) newline(stack.size());
    std::size_t k = f.next++;
    if (array) {
      open((*f.v->arr)[k]);  // may grow the stack: f is not used after
    } else {
      const auto* e = f.entries[k];
      out += json_quote(e->first, o.ensure_ascii);
      out += key_sep;
      open(e->second);
    }
  }
  if (out.size() > lim.max_bytes) throw RenderError{output_limit_message(lim.max_bytes)};
  return out;
}

Value from_json(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::null: return Value::none();
    case nlohmann::json::value_t::boolean: return Value::boolean(j.get<bool>());
    case nlohmann::json::value_t::number_integer: return Value::integer(j.get<std::int64_t>());
    case nlohmann::json::value_t::number_unsigned: {
      auto u = j.get<std::uint64_t>();
      return u > static_cast<std::uint64_t>(INT64_MAX)
                 ? Value::real(static_cast<double>(u))
                 : Value::integer(static_cast<std::int64_t>(u));
    }
    case nlohmann::json::value_t::number_float: {
      double d = j.get<double>();
      if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.2e18) {
        return Value::integer(static_cast<std::int64_t>(d));
      }
      return Value::real(d);
    }
    case nlohmann::json::value_t::string: return Value::string(j.get<std::string>());
    case nlohmann::json::value_t::array: {
      Array a;
      a.reserve(j.size());
      for (const auto& e : j) a.push_back(from_json(e));
      return Value::array(std::move(a));
    }
    case nlohmann::json::value_t::object: {
      Object o;
      for (auto it = j.begin(); it != j.end(); ++it) o.set(it.key(), from_json(it.value()));
      return Value::object(std::move(o));
    }
    default: return Value();
  }
}

namespace {

// Number(s) for a string operand of loose ==: trimmed, empty is 0, else
// the whole text must be a number.
bool js_to_number(const std::string& s, double* out) {
  std::string t(js_trim(s));
  if (t.empty()) {
    *out = 0;
    return true;
  }
  char* end = nullptr;
  *out = std::strtod(t.c_str(), &end);
  return end == t.c_str() + t.size();
}

bool is_numeric_like(const Value& v) { return v.is_number() || v.kind == Kind::kBool; }

}  // namespace

bool loose_equal(const Value& a, const Value& b) {
  bool an = a.is_none() || a.is_undefined(), bn = b.is_none() || b.is_undefined();
  if (an || bn) return an && bn;
  if (is_numeric_like(a) && is_numeric_like(b)) return a.number() == b.number();
  if (a.kind == Kind::kString && b.kind == Kind::kString) return a.s == b.s;
  if (a.kind == Kind::kString && is_numeric_like(b)) {
    double d;
    return js_to_number(a.s, &d) && d == b.number();
  }
  if (b.kind == Kind::kString && is_numeric_like(a)) return loose_equal(b, a);
  return strict_equal(a, b);
}

bool strict_equal(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) return a.number() == b.number();
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Kind::kUndefined:
    case Kind::kNone: return true;
    case Kind::kBool: return a.b == b.b;
    case Kind::kString: return a.s == b.s;
    case Kind::kArray: return a.arr == b.arr;
    case Kind::kObject:
    case Kind::kNamespace: return a.obj == b.obj;
    case Kind::kFunction: return a.fn == b.fn;
    default: return false;
  }
}

}  // namespace tok::chat
