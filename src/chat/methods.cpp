// Attribute access and the methods of strings and objects (Interpreter::
// member), as @huggingface/jinja defines them. Its strip/lstrip/rstrip take
// no characters argument: they strip whitespace whatever is passed, and so
// does tok, to render the same text.
#include <cstdlib>

#include "chat/builtins.hpp"
#include "chat/js_text.hpp"

namespace tok::chat {

namespace {

using Args = std::vector<Value>;

bool starts_or_ends(Interpreter& in, const std::string& s, const Args& args, bool start,
                    const char* name) {
  if (args.empty()) in.fail(std::string(name) + "() needs an argument");
  auto test = [&](const Value& p) {
    if (p.kind != Kind::kString) in.fail(std::string(name) + "() takes strings");
    if (p.s.size() > s.size()) return false;
    return start ? s.compare(0, p.s.size(), p.s) == 0
                 : s.compare(s.size() - p.s.size(), p.s.size(), p.s) == 0;
  };
  if (args[0].kind == Kind::kArray) {
    in.work(args[0].arr->size());
    for (const auto& p : *args[0].arr) {
      if (test(p)) return true;
    }
    return false;
  }
  return test(args[0]);
}

// str.split; each part is charged to the budget as it is made.
Value split(Interpreter& in, const std::string& s, const Args& args) {
  Value sep = args.size() > 0 ? args[0] : Value::none();
  std::int64_t maxsplit = -1;
  if (args.size() > 1) {
    if (args[1].kind != Kind::kInt) in.fail("split(): maxsplit must be an integer");
    maxsplit = args[1].i;
  }
  Array out;
  auto add = [&](std::string part) {
    in.built(sizeof(Value) + part.size());
    out.push_back(Value::string(std::move(part)));
  };
  if (sep.is_none()) {
    std::string_view t = js_trim_start(s);
    std::size_t p = 0;
    while (p < t.size()) {
      std::size_t e = p, n;
      while (e < t.size() && js_space_at(t, e) == 0) ++e;
      if (maxsplit != -1 && static_cast<std::int64_t>(out.size()) >= maxsplit) {
        add(std::string(t.substr(p)));
        break;
      }
      add(std::string(t.substr(p, e - p)));
      p = e;
      while ((n = js_space_at(t, p)) > 0) p += n;
    }
    return Value::array(std::move(out));
  }
  if (sep.kind != Kind::kString) in.fail("split(): the separator must be a string or none");
  if (sep.s.empty()) in.fail("split(): empty separator");
  std::size_t p = 0;
  while (true) {
    std::size_t q = s.find(sep.s, p);
    if (q == std::string::npos ||
        (maxsplit != -1 && static_cast<std::int64_t>(out.size()) >= maxsplit)) {
      add(s.substr(p));
      break;
    }
    add(s.substr(p, q - p));
    p = q + sep.s.size();
  }
  return Value::array(std::move(out));
}

std::string title_case(const std::string& s) {
  std::string r = s;
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (std::size_t k = 0; k < r.size(); ++k) {
    if ((k == 0 || !word(r[k - 1])) && r[k] >= 'a' && r[k] <= 'z')
      r[k] = static_cast<char>(r[k] - 32);
  }
  return r;
}

}  // namespace

// String.replace with a count (none: all); an empty `from` inserts between
// code points, as the "gu" regex (?=) does.
std::string replace_text(Interpreter& in, const std::string& s, const std::string& from,
                         const std::string& to, std::int64_t count) {
  if (count == 0) return s;
  std::int64_t left = count < 0 ? INT64_MAX : count;
  std::string out;
  if (from.empty()) {
    for (const auto& cp : code_points(s)) {
      if (left-- > 0) out += to;
      out += cp;
      in.check_size(out.size());
    }
    if (left > 0) out += to;
    return out;
  }
  std::size_t p = 0;
  while (left > 0) {
    std::size_t q = s.find(from, p);
    if (q == std::string::npos) break;
    out.append(s, p, q - p);
    out += to;
    in.check_size(out.size());
    p = q + from.size();
    --left;
  }
  out.append(s, p);
  return out;
}

Value string_method(Interpreter& in, const std::string& s, const std::string& name) {
  // Code points, case and search all walk the string.
  in.work(s.size() / 16);
  auto method = [&](auto f) {
    std::string self = s;
    return Value::function([&in, self, f](Args& args, Object& kw) {
      in.work(self.size() / 16);
      Value r = f(in, self, args, kw);
      if (r.kind == Kind::kString) in.built(r.s.size());
      return r;
    });
  };
  if (name == "length") return Value::integer(static_cast<std::int64_t>(code_points(s).size()));
  if (name == "upper")
    return method([](Interpreter&, const std::string& x, Args&, Object&) {
      return Value::string(ascii_upper(x));
    });
  if (name == "lower")
    return method([](Interpreter&, const std::string& x, Args&, Object&) {
      return Value::string(ascii_lower(x));
    });
  if (name == "strip")
    return method([](Interpreter&, const std::string& x, Args&, Object&) {
      return Value::string(std::string(js_trim(x)));
    });
  if (name == "lstrip")
    return method([](Interpreter&, const std::string& x, Args&, Object&) {
      return Value::string(std::string(js_trim_start(x)));
    });
  if (name == "rstrip")
    return method([](Interpreter&, const std::string& x, Args&, Object&) {
      return Value::string(std::string(js_trim_end(x)));
    });
  if (name == "title")
    return method([](Interpreter&, const std::string& x, Args&, Object&) {
      return Value::string(title_case(x));
    });
  if (name == "capitalize") {
    return method([](Interpreter&, const std::string& x, Args&, Object&) {
      std::string r = x;
      if (!r.empty() && r[0] >= 'a' && r[0] <= 'z') r[0] = static_cast<char>(r[0] - 32);
      return Value::string(r);
    });
  }
  if (name == "startswith" || name == "endswith") {
    bool start = name == "startswith";
    std::string self = s;
    return Value::function([&in, self, start](Args& args, Object&) {
      return Value::boolean(
          starts_or_ends(in, self, args, start, start ? "startswith" : "endswith"));
    });
  }
  if (name == "split")
    return method(
        [](Interpreter& i, const std::string& x, Args& a, Object&) { return split(i, x, a); });
  if (name == "replace") {
    return method([](Interpreter& i, const std::string& x, Args& a, Object& kw) {
      if (a.size() < 2) i.fail("replace() needs two arguments");
      if (a[0].kind != Kind::kString || a[1].kind != Kind::kString)
        i.fail("replace() takes strings");
      Value count = a.size() > 2 ? a[2] : kw.find("count") ? *kw.find("count") : Value::none();
      if (count.kind != Kind::kInt && !count.is_none())
        i.fail("replace(): count must be an integer");
      return Value::string(replace_text(i, x, a[0].s, a[1].s, count.is_none() ? -1 : count.i));
    });
  }
  return Value();
}

Value object_items(Interpreter& in, const Object& o) {
  Array items;
  for (const auto& [k, v] : o.entries) {
    in.built(3 * sizeof(Value) + k.size() + value_bytes(v));
    items.push_back(Value::array({Value::string(k), v}));
  }
  return Value::array(std::move(items));
}

// A bound method keeps its object alive through Function::owner and reads it
// through a plain pointer, so that freeing a chain of them (an object holding
// the `get` of the previous one, 100,000 deep) needs no recursion.
Value object_method(Interpreter& in, const Value& o, const std::string& name) {
  const Object* self = o.obj.get();
  if (name == "get") {
    return Value::function(
        [&in, self](Args& a, Object&) {
          if (a.empty() || a[0].kind != Kind::kString) in.fail("get(): the key must be a string");
          in.work(self->size());
          const Value* v = self->find(a[0].s);
          return v ? *v : a.size() > 1 ? a[1] : Value::none();
        },
        o.obj);
  }
  if (name == "items")
    return Value::function([&in, self](Args&, Object&) { return object_items(in, *self); }, o.obj);
  if (name == "keys" || name == "values") {
    bool keys = name == "keys";
    return Value::function(
        [&in, self, keys](Args&, Object&) {
          Array out;
          for (const auto& [k, v] : self->entries) {
            out.push_back(keys ? Value::string(k) : v);
            in.built(value_bytes(out.back()));
          }
          return Value::array(std::move(out));
        },
        o.obj);
  }
  return Value();
}

Value Interpreter::member(const Value& object, const Value& prop) {
  if (object.is_mapping()) {
    if (prop.kind != Kind::kString)
      fail("a key of a mapping must be a string, got " + std::string(kind_name(prop.kind)));
    work(object.obj->size() / 8);
    if (const Value* v = object.obj->find(prop.s)) return *v;
    return object.kind == Kind::kObject ? object_method(*this, object, prop.s) : Value();
  }
  if (object.kind == Kind::kArray || object.kind == Kind::kString) {
    if (prop.kind == Kind::kInt) {
      if (object.kind == Kind::kArray) {
        auto n = static_cast<std::int64_t>(object.arr->size());
        std::int64_t k = prop.i < 0 ? n + prop.i : prop.i;
        return k >= 0 && k < n ? (*object.arr)[static_cast<std::size_t>(k)] : Value();
      }
      work(object.s.size() / 16);
      std::vector<std::string> cps = code_points(object.s);
      auto n = static_cast<std::int64_t>(cps.size());
      std::int64_t k = prop.i < 0 ? n + prop.i : prop.i;
      return k >= 0 && k < n ? Value::string(cps[static_cast<std::size_t>(k)]) : Value();
    }
    if (prop.kind == Kind::kString) {
      if (object.kind == Kind::kString) return string_method(*this, object.s, prop.s);
      return prop.s == "length" ? Value::integer(static_cast<std::int64_t>(object.arr->size()))
                                : Value();
    }
    fail("an index must be an integer or a string, got " + std::string(kind_name(prop.kind)));
  }
  if (prop.kind != Kind::kString)
    fail("a key must be a string, got " + std::string(kind_name(prop.kind)));
  return Value();
}

}  // namespace tok::chat
