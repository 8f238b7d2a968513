// Filters (x | name, x | name(args)) and tests (x is name) with the
// behaviour of @huggingface/jinja: which filter applies to which type, its
// defaults and its errors. An unknown filter or test is an error naming it.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "chat/builtins.hpp"
#include "chat/js_text.hpp"

namespace tok::chat {

namespace {

using Args = std::vector<Value>;

// compareRuntimeValues: numbers (and booleans) by value, strings
// case-insensitively unless asked; anything else is an error.
int compare(Interpreter& in, const Value& a, const Value& b, bool case_sensitive) {
  if (a.is_none() && b.is_none()) return 0;
  if (a.is_undefined() && b.is_undefined()) return 0;
  bool an = a.is_number() || a.kind == Kind::kBool, bn = b.is_number() || b.kind == Kind::kBool;
  if (an && bn) return a.number() < b.number() ? -1 : a.number() > b.number() ? 1 : 0;
  if (a.kind == Kind::kString && b.kind == Kind::kString) {
    std::string x = case_sensitive ? a.s : ascii_lower(a.s),
                y = case_sensitive ? b.s : ascii_lower(b.s);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  in.fail("cannot compare " + std::string(kind_name(a.kind)) + " with " +
          std::string(kind_name(b.kind)));
}

// getAttributeValue: "a.b.0" through objects and arrays.
Value attribute_path(const Value& item, const std::string& path) {
  Value v = item;
  std::size_t p = 0;
  while (true) {
    std::size_t q = path.find('.', p);
    std::string part = path.substr(p, q == std::string::npos ? std::string::npos : q - p);
    if (v.is_mapping()) {
      const Value* f = v.obj->find(part);
      v = f ? *f : Value();
    } else if (v.kind == Kind::kArray) {
      char* end = nullptr;
      long k = std::strtol(part.c_str(), &end, 10);
      if (end == part.c_str() || k < 0 || static_cast<std::size_t>(k) >= v.arr->size())
        return Value();
      v = (*v.arr)[static_cast<std::size_t>(k)];
    } else {
      return Value();
    }
    if (q == std::string::npos) return v;
    p = q + 1;
  }
}

const Value* arg(const Args& pos, std::size_t k, const Object& kw, const char* name) {
  if (k < pos.size()) return &pos[k];
  return kw.find(name);
}

Value parse_int(Interpreter& in, const std::string& s, const Value& fallback) {
  std::string t(js_trim_start(s));
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(t.c_str(), &end, 10);
  if (end == t.c_str()) return fallback;
  if (errno == ERANGE) in.fail("integer overflow in filter 'int' (integers must fit in 64 bits)");
  return Value::integer(v);
}

Value parse_float(const std::string& s, const Value& fallback) {
  std::string t(js_trim_start(s));
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  return end == t.c_str() ? fallback : Value::real(v);
}

std::string indent_text(const std::string& s, std::size_t width, bool first, bool blank) {
  std::string pad(width, ' '), out;
  std::size_t p = 0, line = 0;
  while (true) {
    std::size_t q = s.find('\n', p);
    std::string l = s.substr(p, q == std::string::npos ? std::string::npos : q - p);
    if ((first || line > 0) && (blank || !l.empty())) out += pad;
    out += l;
    if (q == std::string::npos) break;
    out += '\n';
    p = q + 1;
    ++line;
  }
  return out;
}

Value tojson(Interpreter& in, const Value& v, const Object& kw) {
  JsonOptions o;
  if (const Value* i = kw.find("indent"); i && !i->is_none()) {
    if (i->kind != Kind::kInt) in.fail("tojson: indent must be an integer");
    o.indent = static_cast<int>(std::clamp<std::int64_t>(i->i, 0, 64));
  }
  if (const Value* a = kw.find("ensure_ascii")) o.ensure_ascii = truthy(*a);
  if (const Value* s = kw.find("sort_keys")) o.sort_keys = truthy(*s);
  if (const Value* s = kw.find("separators"); s && !s->is_none()) {
    if (s->kind != Kind::kArray || s->arr->size() != 2 || (*s->arr)[0].kind != Kind::kString ||
        (*s->arr)[1].kind != Kind::kString) {
      in.fail("tojson: separators must be two strings");
    }
    o.custom_separators = true;
    o.item_sep = (*s->arr)[0].s;
    o.key_sep = (*s->arr)[1].s;
  }
  std::string out = to_json(v, o, in.print_limits());
  in.check_size(out.size());
  in.built(out.size());
  return Value::string(std::move(out));
}

Value array_filter(Interpreter& in, const Value& a, const std::string& name, const Args& pos,
                   const Object& kw, bool called) {
  const Array& items = *a.arr;
  if (name == "list") return a;
  if (name == "first") return items.empty() ? Value() : items.front();
  if (name == "last") return items.empty() ? Value() : items.back();
  if (name == "length") return Value::integer(static_cast<std::int64_t>(items.size()));
  if (name == "reverse") {
    for (const auto& x : items) in.built(value_bytes(x));
    return Value::array(Array(items.rbegin(), items.rend()));
  }
  if (name == "join") {
    const Value* sep = arg(pos, 0, kw, "separator");
    if (sep && sep->kind != Kind::kString) in.fail("join: the separator must be a string");
    std::string out;
    for (std::size_t k = 0; k < items.size(); ++k) {
      in.work(1);
      if (k && sep) out += sep->s;
      out += to_js_string(items[k], in.print_limits());
      in.check_size(out.size());
    }
    in.built(out.size());
    return Value::string(std::move(out));
  }
  if (name == "string" && !called) {
    std::string out = to_json(a, {}, in.print_limits(), false);
    in.built(out.size());
    return Value::string(std::move(out));
  }
  if (name == "unique" && !called) {
    // Quadratic, as @huggingface/jinja's is (identity for arrays and
    // objects): each comparison is a step, so a long list ends in an error.
    Array out;
    for (const auto& x : items) {
      in.work(out.size() + 1);
      bool seen = false;
      for (const auto& y : out) seen = seen || strict_equal(x, y);
      if (!seen) {
        in.built(value_bytes(x));
        out.push_back(x);
      }
    }
    return Value::array(std::move(out));
  }
  if (name == "sort") {
    const Value* rev = arg(pos, 0, kw, "reverse");
    const Value* cs = arg(pos, 1, kw, "case_sensitive");
    const Value* attr = arg(pos, 2, kw, "attribute");
    bool reverse = rev && truthy(*rev), case_sensitive = cs && truthy(*cs);
    std::string path = !attr || attr->is_none()   ? ""
                       : attr->kind == Kind::kInt ? std::to_string(attr->i)
                                                  : attr->s;
    for (const auto& x : items) in.built(value_bytes(x));
    Array out = items;
    std::stable_sort(out.begin(), out.end(), [&](const Value& x, const Value& y) {
      in.work(1 + (path.empty() ? 0 : path.size() / 8));
      Value vx = path.empty() ? x : attribute_path(x, path),
            vy = path.empty() ? y : attribute_path(y, path);
      int c = compare(in, vx, vy, case_sensitive);
      return reverse ? c > 0 : c < 0;
    });
    return Value::array(std::move(out));
  }
  if (name == "selectattr" || name == "rejectattr") {
    bool select = name == "selectattr";
    for (const auto& x : items) {
      if (!x.is_mapping()) in.fail(name + " applies to an array of objects");
    }
    if (pos.empty() || pos[0].kind != Kind::kString) in.fail(name + " needs an attribute name");
    Array out;
    for (const auto& x : items) {
      in.work(x.obj->size() + 1);
      const Value* v = x.obj->find(pos[0].s);
      bool r = false;
      // @huggingface/jinja tests only attributes present (none included):
      // a missing one passes no test, so rejectattr keeps it.
      if (v) {
        if (pos.size() > 1 && (pos[1].s == "equalto" || pos[1].s == "eq")) {
          r = strict_equal(*v, pos.size() > 2 ? pos[2] : Value());
        } else {
          r = pos.size() > 1 ? in.apply_test(pos[1].s, *v) : truthy(*v);
        }
      }
      if (r == select) {
        in.built(value_bytes(x));
        out.push_back(x);
      }
    }
    return Value::array(std::move(out));
  }
  if (name == "map") {
    const Value* attr = kw.find("attribute");
    if (!attr) in.fail("map is supported only with attribute=");
    if (attr->kind != Kind::kString) in.fail("map: attribute must be a string");
    const Value* def = kw.find("default");
    Array out;
    for (const auto& x : items) {
      if (!x.is_mapping()) in.fail("map: items must be objects");
      in.work(1 + attr->s.size() / 8);
      Value v = attribute_path(x, attr->s);
      in.built(value_bytes(v));
      out.push_back(v.is_undefined() && def ? *def : v);
    }
    return Value::array(std::move(out));
  }
  in.fail("unsupported filter '" + name + "' on an array");
}

Value string_filter(Interpreter& in, const Value& s, const std::string& name, const Args& pos,
                    const Object& kw, bool called) {
  if (!called && (name == "length" || name == "upper" || name == "lower" || name == "title" ||
                  name == "capitalize")) {
    Value m = string_method(in, s.s, name);
    if (m.kind != Kind::kFunction) return m;
    Args none;
    Object nokw;
    return m.fn->call(none, nokw);
  }
  if (name == "trim" && !called) {
    in.built(s.s.size());
    return Value::string(std::string(js_trim(s.s)));
  }
  if (name == "string" && !called) return s;
  if (name == "join") {
    const Value* sep = arg(pos, 0, kw, "separator");
    if (sep && sep->kind != Kind::kString) in.fail("join: the separator must be a string");
    if (!called || !sep) return s;
    std::string out;
    in.work(s.s.size() / 16);
    std::vector<std::string> cps = code_points(s.s);
    for (std::size_t k = 0; k < cps.size(); ++k) {
      out += (k ? sep->s : "") + cps[k];
      in.check_size(out.size());
    }
    in.built(out.size());
    return Value::string(std::move(out));
  }
  if (name == "indent") {
    const Value* w = arg(pos, 0, kw, "width");
    if (w && w->kind != Kind::kInt) in.fail("indent: width must be an integer");
    const Value* first = arg(pos, 1, kw, "first");
    const Value* blank = arg(pos, 2, kw, "blank");
    std::size_t width = w ? static_cast<std::size_t>(std::clamp<std::int64_t>(w->i, 0, 1024)) : 4;
    std::string out = indent_text(s.s, width, first && truthy(*first), blank && truthy(*blank));
    in.check_size(out.size());
    in.built(out.size());
    return Value::string(std::move(out));
  }
  if (name == "replace" && called) {
    Value m = string_method(in, s.s, "replace");
    Args a = pos;
    Object k = kw;
    return m.fn->call(a, k);
  }
  in.fail("unsupported filter '" + name + "' on a string");
}

// A float's integer part, or an error where it has none in 64 bits.
Value float_to_int(Interpreter& in, double f) {
  double t = std::floor(f);
  // 2^63 is exact as a double; every double below it converts.
  if (!(t >= -9223372036854775808.0 && t < 9223372036854775808.0)) {
    in.fail("integer overflow in filter 'int' (" + js_number(f) + " has no 64-bit integer value)");
  }
  return Value::integer(static_cast<std::int64_t>(t));
}

Value number_filter(Interpreter& in, const Value& v, const std::string& name) {
  if (name == "abs") {
    if (v.kind != Kind::kInt) return Value::real(std::fabs(v.f));
    if (v.i == INT64_MIN) in.fail("integer overflow in filter 'abs' (results must fit in 64 bits)");
    return Value::integer(v.i < 0 ? -v.i : v.i);
  }
  if (name == "int") return v.kind == Kind::kInt ? v : float_to_int(in, v.f);
  if (name == "float") return Value::real(v.number());
  if (name == "string") return Value::string(to_output(v, in.print_limits()));
  in.fail("unsupported filter '" + name + "' on a number");
}

}  // namespace

Value Interpreter::apply_filter(const Value& operand, const Node& filter, Env& env) {
  bool called = filter.kind == NodeKind::kCall;
  if (called && filter.x->kind != NodeKind::kIdent) fail("a filter must be a name");
  const std::string& name = called ? filter.x->str : filter.str;
  Args pos;
  Object kw;
  if (called) args(filter.a, env, pos, kw);
  if (name == "safe" && !called) return operand;
  if (name == "tojson") return tojson(*this, operand, kw);
  if (called && (name == "int" || name == "float")) {
    const Value* d = arg(pos, 0, kw, "default");
    Value fallback = d ? *d : name == "int" ? Value::integer(0) : Value::real(0);
    if (operand.kind == Kind::kString) {
      return name == "int" ? parse_int(*this, operand.s, fallback)
                           : parse_float(operand.s, fallback);
    }
    if (operand.is_number()) return operand;
    if (operand.kind == Kind::kBool)
      return name == "int" ? Value::integer(operand.b) : Value::real(operand.b);
    fail("cannot apply filter '" + name + "' to " + std::string(kind_name(operand.kind)));
  }
  if (name == "default" && called) {
    Value def = pos.size() > 0 ? pos[0] : Value::string("");
    const Value* flag = arg(pos, 1, kw, "boolean");
    if (operand.is_undefined() || (flag && truthy(*flag) && !truthy(operand))) return def;
    return operand;
  }
  switch (operand.kind) {
    case Kind::kArray: return array_filter(*this, operand, name, pos, kw, called);
    case Kind::kString:
      if (!called && name == "int") return parse_int(*this, operand.s, Value::integer(0));
      if (!called && name == "float") return parse_float(operand.s, Value::real(0));
      return string_filter(*this, operand, name, pos, kw, called);
    case Kind::kInt:
    case Kind::kFloat:
      if (called) break;
      return number_filter(*this, operand, name);
    case Kind::kObject:
      if (!called && name == "items") {
        work(operand.obj->size());
        return object_items(*this, *operand.obj);
      }
      if (!called && name == "length")
        return Value::integer(static_cast<std::int64_t>(operand.obj->size()));
      if (Value m = object_method(*this, operand, name); m.kind == Kind::kFunction)
        return m.fn->call(pos, kw);
      fail("unsupported filter '" + name + "' on an object");
    case Kind::kBool:
      if (called) break;
      if (name == "bool") return operand;
      if (name == "int") return Value::integer(operand.b);
      if (name == "float") return Value::real(operand.b);
      if (name == "string") return Value::string(operand.b ? "true" : "false");
      fail("unsupported filter '" + name + "' on a boolean");
    default: break;
  }
  fail("cannot apply filter '" + name + "' to " + std::string(kind_name(operand.kind)));
}

bool Interpreter::apply_test(const std::string& name, const Value& v) {
  if (name == "defined") return !v.is_undefined();
  if (name == "undefined") return v.is_undefined();
  if (name == "none") return v.is_none();
  if (name == "string") return v.kind == Kind::kString;
  if (name == "number") return v.is_number();
  if (name == "integer") return v.kind == Kind::kInt;
  if (name == "boolean") return v.kind == Kind::kBool;
  if (name == "true") return v.kind == Kind::kBool && v.b;
  if (name == "false") return v.kind == Kind::kBool && !v.b;
  if (name == "callable") return v.kind == Kind::kFunction;
  if (name == "iterable") return v.kind == Kind::kArray || v.kind == Kind::kString;
  if (name == "mapping") return v.kind == Kind::kObject;
  if (name == "sequence")
    return v.kind == Kind::kArray || v.kind == Kind::kObject || v.kind == Kind::kString;
  if (name == "lower") return v.kind == Kind::kString && v.s == ascii_lower(v.s);
  if (name == "upper") return v.kind == Kind::kString && v.s == ascii_upper(v.s);
  if (name == "odd" || name == "even") {
    if (v.kind != Kind::kInt) fail("test '" + name + "' needs an integer");
    return (v.i % 2 != 0) == (name == "odd");
  }
  fail("unsupported test '" + name + "'");
}

}  // namespace tok::chat
