#include "chat/interpreter.hpp"

#include <pthread.h>

#include <cmath>

#include "chat/js_text.hpp"

namespace tok::chat {

namespace {

struct BreakSignal {};
struct ContinueSignal {};

// The Python-style slice of n items: the indices it selects, in order. The
// index runs in 128 bits: a step of 2^63-1 must not wrap it.
std::vector<std::size_t> slice_indices(std::int64_t n, const Value& start, const Value& stop,
                                       const Value& step) {
  std::int64_t st = step.is_undefined() ? 1 : step.i;
  std::int64_t b, e;
  if (st >= 0) {
    b = start.is_undefined() ? 0 : start.i;
    e = stop.is_undefined() ? n : stop.i;
    b = b < 0 ? std::max<std::int64_t>(n + b, 0) : std::min(b, n);
    e = e < 0 ? std::max<std::int64_t>(n + e, 0) : std::min(e, n);
  } else {
    b = start.is_undefined() ? n - 1 : start.i;
    e = stop.is_undefined() ? -1 : stop.i;
    b = b < 0 ? std::max<std::int64_t>(n + b, -1) : std::min(b, n - 1);
    e = e < -1 ? std::max<std::int64_t>(n + e, -1) : std::min(e, n - 1);
  }
  std::vector<std::size_t> out;
  // JavaScript's loop with step 0 never ends; refuse it instead.
  if (st == 0) return out;
  for (__int128 k = b; st > 0 ? k < e : k > e; k += st) out.push_back(static_cast<std::size_t>(k));
  return out;
}

// The lowest address the render's frames may reach: the calling thread's
// stack less a margin for what runs below the deepest frame (filters, the
// allocator, a sanitizer's report). Null when the stack cannot be asked.
const char* stack_floor() {
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return nullptr;
  void* addr = nullptr;
  std::size_t size = 0;
  int rc = pthread_attr_getstack(&attr, &addr, &size);
  pthread_attr_destroy(&attr);
  constexpr std::size_t kMargin = std::size_t{256} << 10;
  if (rc != 0 || size <= 2 * kMargin) return nullptr;
  return static_cast<const char*>(addr) + kMargin;
}

}  // namespace

Value Env::lookup(const std::string& name) const {
  for (const Env* e = this; e; e = e->parent_) {
    auto it = e->vars_.find(name);
    if (it != e->vars_.end()) return it->second;
  }
  return Value();
}

void Interpreter::check_size(std::size_t bytes) const {
  if (bytes > limits_.max_output) fail(output_limit_message(limits_.max_output));
}

void Interpreter::work(std::size_t units) {
  steps_ += units;
  if (steps_ > limits_.max_steps)
    fail("the template takes more than " + std::to_string(limits_.max_steps) + " steps");
}

void Interpreter::built(std::size_t bytes) {
  bytes_ += bytes;
  if (bytes_ > limits_.max_memory) {
    fail("the template's values take more than " + std::to_string(limits_.max_memory >> 20) +
         " MiB");
  }
  copied(bytes);
}

PrintLimits Interpreter::print_limits() const {
  return {limits_.max_depth - depth_, limits_.max_output};
}

Value Interpreter::make_namespace(Object o) {
  built(sizeof(Object) + o.entries.size() * sizeof(o.entries[0]));
  Value v = Value::ns(std::move(o));
  namespaces_.push_back(v.obj);
  return v;
}

Interpreter::~Interpreter() {
  for (const auto& w : namespaces_) {
    if (auto ns = w.lock()) {
      auto entries = std::move(ns->entries);
      ns->entries.clear();
    }
  }
}

Interpreter::Nest::Nest(Interpreter& in) : in_(in) {
  if (++in_.depth_ > in_.limits_.max_depth) {
    --in_.depth_;
    in_.fail("the template nests deeper than " + std::to_string(in_.limits_.max_depth) +
             " levels (calls, blocks and expressions together)");
  }
  if (in_.stack_floor_ && static_cast<const char*>(__builtin_frame_address(0)) < in_.stack_floor_) {
    --in_.depth_;
    in_.fail(
        "the template nests too deeply for the stack (calls, blocks and expressions together)");
  }
}

std::string Interpreter::run(const Program& p, Env& globals) {
  stack_floor_ = stack_floor();
  return block(p.body, globals);
}

std::string Interpreter::block(const NodeList& body, Env& env) {
  std::string out;
  for (const auto& st : body) {
    Value v = eval(*st, env);
    if (v.is_none() || v.is_undefined()) continue;
    if (v.kind == Kind::kString) {
      out += v.s;
    } else {
      std::string text = to_output(v, print_limits());
      copied(text.size());
      out += text;
    }
    check_size(out.size());
  }
  return out;
}

Value Interpreter::eval(const Node& n, Env& env) {
  work(1);
  Nest nest(*this);
  std::size_t saved = pos_;
  pos_ = n.pos;
  Value v;
  switch (n.kind) {
    case NodeKind::kText: v = Value::string(n.str); break;
    case NodeKind::kComment: v = Value::none(); break;
    case NodeKind::kIf: v = Value::string(block(truthy(eval(*n.x, env)) ? n.a : n.b, env)); break;
    case NodeKind::kFor: v = Value::string(for_loop(n, env)); break;
    case NodeKind::kSet:
      set(n, env);
      v = Value::none();
      break;
    case NodeKind::kMacro:
      macro(n, env);
      v = Value::none();
      break;
    case NodeKind::kCallBlock: v = Value::string(call_block(n, env)); break;
    case NodeKind::kFilterBlock: v = apply_filter(Value::string(block(n.a, env)), *n.x, env); break;
    case NodeKind::kBreak: throw BreakSignal{};
    case NodeKind::kContinue: throw ContinueSignal{};
    case NodeKind::kIdent: v = env.lookup(n.str); break;
    case NodeKind::kCall: v = call(n, env); break;
    case NodeKind::kMember: v = member_expr(n, env); break;
    case NodeKind::kUnary: v = unary(n, env); break;
    case NodeKind::kBinary: v = binary(n, env); break;
    case NodeKind::kFilter: v = apply_filter(eval(*n.x, env), *n.y, env); break;
    case NodeKind::kTest: v = Value::boolean(apply_test(n.str, eval(*n.x, env)) != n.flag); break;
    case NodeKind::kSelect: v = truthy(eval(*n.y, env)) ? eval(*n.x, env) : Value(); break;
    case NodeKind::kTernary: v = truthy(eval(*n.x, env)) ? eval(*n.y, env) : eval(*n.z, env); break;
    case NodeKind::kSlice: fail("a slice is only allowed inside [...]");
    case NodeKind::kKwarg:
    case NodeKind::kSpread:
    case NodeKind::kKwSpread: fail("argument syntax outside a call");
    default: v = literal(n, env); break;
  }
  // A string is copied wherever it goes (a lookup copies it): its bytes are work.
  if (v.kind == Kind::kString) copied(v.s.size());
  pos_ = saved;
  return v;
}

Value Interpreter::literal(const Node& n, Env& env) {
  switch (n.kind) {
    case NodeKind::kInt: return Value::integer(n.ival);
    case NodeKind::kFloat: return Value::real(n.fval);
    case NodeKind::kString: return Value::string(n.str);
    case NodeKind::kArray:
    case NodeKind::kTuple: {
      Array items;
      for (const auto& e : n.a) {
        items.push_back(eval(*e, env));
        built(value_bytes(items.back()));
      }
      return Value::array(std::move(items));
    }
    case NodeKind::kObject: {
      Object o;
      for (std::size_t k = 0; k < n.a.size(); ++k) {
        Value key = eval(*n.a[k], env);
        if (key.kind != Kind::kString)
          fail("object keys must be strings, got " + std::string(kind_name(key.kind)));
        Value val = eval(*n.b[k], env);
        built(key.s.size() + value_bytes(val));
        work(o.size());  // Object::set looks for the key
        o.set(key.s, std::move(val));
      }
      return Value::object(std::move(o));
    }
    default: fail("unsupported expression");
  }
}

Value Interpreter::unary(const Node& n, Env& env) {
  Value a = eval(*n.x, env);
  if (n.str == "not") return Value::boolean(!truthy(a));
  bool negate = n.str == "-";
  if (a.kind == Kind::kFloat) return Value::real(negate ? -a.f : a.f);
  if (a.kind == Kind::kInt || a.kind == Kind::kBool) {
    std::int64_t x = a.kind == Kind::kInt ? a.i : a.b ? 1 : 0;
    if (negate && x == INT64_MIN) fail("integer overflow in unary '-'");
    return Value::integer(negate ? -x : x);
  }
  fail("unary '" + n.str + "' on " + std::string(kind_name(a.kind)));
}

Value Interpreter::binary(const Node& n, Env& env) {
  const std::string& op = n.str;
  Value l = eval(*n.x, env);
  if (op == "and") return truthy(l) ? eval(*n.y, env) : l;
  if (op == "or") return truthy(l) ? l : eval(*n.y, env);
  Value r = eval(*n.y, env);
  if (op == "==") return Value::boolean(loose_equal(l, r));
  if (op == "!=") return Value::boolean(!loose_equal(l, r));
  bool is_in = op == "in" || op == "not in";
  if (l.is_undefined() || r.is_undefined()) {
    if (r.is_undefined() && is_in) return Value::boolean(op == "not in");
    fail("'" + op + "' on an undefined value");
  }
  if (l.is_none() || r.is_none()) fail("'" + op + "' on none");
  auto concat = [&] {
    std::string s = to_js_string(l, print_limits());
    s += to_js_string(r, print_limits());
    check_size(s.size());
    built(s.size());
    return Value::string(std::move(s));
  };
  if (op == "~") return concat();
  bool ln = l.is_number() || l.kind == Kind::kBool, rn = r.is_number() || r.kind == Kind::kBool;
  if ((op == "**" && ln && rn) || (l.is_number() && r.is_number())) return numeric(op, l, r);
  if (l.kind == Kind::kArray && r.kind == Kind::kArray) {
    if (op == "+") {
      Array a;
      a.reserve(l.arr->size() + r.arr->size());
      for (const Array* part : {l.arr.get(), r.arr.get()}) {
        for (const auto& e : *part) {
          built(value_bytes(e));
          a.push_back(e);
        }
      }
      return Value::array(std::move(a));
    }
  } else if (r.kind == Kind::kArray) {
    if (is_in) {
      work(r.arr->size());
      bool found = false;
      for (const auto& e : *r.arr) found = found || strict_equal(e, l);
      return Value::boolean(found == (op == "in"));
    }
  }
  if ((l.kind == Kind::kString || r.kind == Kind::kString) && op == "+") return concat();
  if (l.kind == Kind::kString && r.kind == Kind::kString && is_in) {
    copied(r.s.size() * (1 + l.s.size() / 64));  // a search is O(n m) at worst
    return Value::boolean((r.s.find(l.s) != std::string::npos) == (op == "in"));
  }
  if (l.kind == Kind::kString && r.kind == Kind::kObject && is_in) {
    work(r.obj->size());
    return Value::boolean((r.obj->find(l.s) != nullptr) == (op == "in"));
  }
  fail("unsupported operator '" + op + "' between " + std::string(kind_name(l.kind)) + " and " +
       std::string(kind_name(r.kind)));
}

Value Interpreter::slice(const Value& object, const Node& s, Env& env) {
  if (object.kind != Kind::kArray && object.kind != Kind::kString)
    fail("only arrays and strings can be sliced");
  Value parts[3];
  const Node* nodes[3] = {s.x.get(), s.y.get(), s.z.get()};
  for (int k = 0; k < 3; ++k) {
    if (nodes[k]) parts[k] = eval(*nodes[k], env);
    if (parts[k].kind != Kind::kInt && !parts[k].is_undefined())
      fail("slice bounds must be integers");
  }
  if (parts[2].kind == Kind::kInt && parts[2].i == 0) fail("slice step cannot be zero");
  if (object.kind == Kind::kArray) {
    work(object.arr->size());
    Array out;
    for (std::size_t k : slice_indices(static_cast<std::int64_t>(object.arr->size()), parts[0],
                                       parts[1], parts[2])) {
      built(value_bytes((*object.arr)[k]));
      out.push_back((*object.arr)[k]);
    }
    return Value::array(std::move(out));
  }
  // Each code point becomes a small string.
  work(object.s.size() / 16);
  std::vector<std::string> cps = code_points(object.s);
  std::string out;
  for (std::size_t k :
       slice_indices(static_cast<std::int64_t>(cps.size()), parts[0], parts[1], parts[2]))
    out += cps[k];
  built(out.size());
  return Value::string(std::move(out));
}

Value Interpreter::member_expr(const Node& n, Env& env) {
  Value object = eval(*n.x, env);
  if (n.flag && n.y->kind == NodeKind::kSlice) return slice(object, *n.y, env);
  Value prop;
  if (n.flag) {
    prop = eval(*n.y, env);
  } else if (n.y->kind == NodeKind::kInt) {
    prop = Value::integer(n.y->ival);
  } else {
    prop = Value::string(n.y->str);
  }
  return member(object, prop);
}

void Interpreter::args(const NodeList& nodes, Env& env, std::vector<Value>& pos, Object& kw) {
  for (const auto& a : nodes) {
    if (a->kind == NodeKind::kSpread) {
      Value v = eval(*a->x, env);
      if (v.kind != Kind::kArray)
        fail("cannot unpack " + std::string(kind_name(v.kind)) + " with '*'");
      work(v.arr->size());
      pos.insert(pos.end(), v.arr->begin(), v.arr->end());
    } else if (a->kind != NodeKind::kKwarg && a->kind != NodeKind::kKwSpread) {
      pos.push_back(eval(*a, env));
    }
  }
  for (const auto& a : nodes) {
    if (a->kind == NodeKind::kKwarg) {
      if (kw.find(a->str)) fail("keyword argument '" + a->str + "' given twice");
      kw.set(a->str, eval(*a->x, env));
    } else if (a->kind == NodeKind::kKwSpread) {
      Value v = eval(*a->x, env);
      if (v.kind != Kind::kObject)
        fail("'**' needs a mapping, got " + std::string(kind_name(v.kind)));
      for (const auto& [k, val] : v.obj->entries) {
        work(kw.size() + 1);
        if (kw.find(k)) fail("keyword argument '" + k + "' given twice");
        kw.set(k, val);
      }
    }
  }
}

Value Interpreter::call(const Node& n, Env& env) {
  std::vector<Value> pos;
  Object kw;
  args(n.a, env, pos, kw);
  Value fn = eval(*n.x, env);
  if (fn.kind != Kind::kFunction) {
    std::string what = n.x->kind == NodeKind::kIdent ? "'" + n.x->str + "'"
                       : n.x->kind == NodeKind::kMember && !n.x->flag
                           ? "method '" + n.x->y->str + "'"
                           : "a value";
    fail("cannot call " + what + ": it is " + std::string(kind_name(fn.kind)) +
         " (unsupported function or method?)");
  }
  return call_function(fn, pos, kw, &env);
}

// Calls fn with `calling_env` as the scope macros see; the scope is restored
// however the call ends (an error, or a `break` inside a macro unwinding to
// the caller's loop).
Value Interpreter::call_function(const Value& fn, std::vector<Value>& pos, Object& kw,
                                 Env* calling_env) {
  struct Restore {
    Interpreter& in;
    Env* saved;
    ~Restore() { in.calling_env_ = saved; }
  } restore{*this, calling_env_};
  calling_env_ = calling_env;
  auto keep = fn.fn;  // the function lives until its call returns
  return keep->call(pos, kw);
}

void Interpreter::set(const Node& n, Env& env) {
  Value rhs = n.y ? eval(*n.y, env) : Value::string(block(n.a, env));
  // A value an operation built was charged as it was made; a variable or an
  // attribute read is a new copy of its string, and a block's text is new.
  bool copy = !n.y || n.y->kind == NodeKind::kIdent || n.y->kind == NodeKind::kMember;
  built(copy ? value_bytes(rhs) : sizeof(Value));
  const Node& target = *n.x;
  if (target.kind == NodeKind::kIdent) {
    env.set(target.str, std::move(rhs));
  } else if (target.kind == NodeKind::kTuple) {
    if (rhs.kind != Kind::kArray)
      fail("cannot unpack " + std::string(kind_name(rhs.kind)) + " in set");
    if (rhs.arr->size() != target.a.size()) fail("wrong number of items to unpack in set");
    for (std::size_t k = 0; k < target.a.size(); ++k) {
      if (target.a[k]->kind != NodeKind::kIdent) fail("cannot unpack to a non-name in set");
      env.set(target.a[k]->str, (*rhs.arr)[k]);
    }
  } else if (target.kind == NodeKind::kMember && !target.flag &&
             target.y->kind == NodeKind::kIdent) {
    Value object = eval(*target.x, env);
    if (object.kind != Kind::kNamespace)
      fail("cannot set an attribute of " + std::string(kind_name(object.kind)) +
           " (only of a namespace)");
    work(object.obj->size());
    object.obj->set(target.y->str, std::move(rhs));
  } else {
    fail("invalid target of set");
  }
}

std::string Interpreter::for_loop(const Node& n, Env& env) {
  Env scope(&env);
  Value iterable = eval(*n.y, scope);
  if (iterable.kind == Kind::kObject) {
    Array keys;
    work(iterable.obj->size());
    for (const auto& e : iterable.obj->entries) keys.push_back(Value::string(e.first));
    iterable = Value::array(std::move(keys));
  }
  if (iterable.kind != Kind::kArray)
    fail("for loop over " + std::string(kind_name(iterable.kind)) + " (needs an array or object)");
  auto bind = [&](Env& e, const Value& item) {
    copied(value_bytes(item));
    if (n.x->kind == NodeKind::kIdent) {
      e.set(n.x->str, item);
      return;
    }
    if (item.kind != Kind::kArray)
      fail("cannot unpack " + std::string(kind_name(item.kind)) + " in for");
    if (item.arr->size() != n.x->a.size()) fail("wrong number of items to unpack in for");
    for (std::size_t k = 0; k < n.x->a.size(); ++k) {
      if (n.x->a[k]->kind != NodeKind::kIdent) fail("cannot unpack to a non-name in for");
      e.set(n.x->a[k]->str, (*item.arr)[k]);
    }
  };
  Array items;
  work(iterable.arr->size());
  for (const auto& item : *iterable.arr) {
    if (n.z) {
      Env test_scope(&scope);
      bind(test_scope, item);
      if (!truthy(eval(*n.z, test_scope))) continue;
    }
    items.push_back(item);
  }
  std::string out;
  bool ran = false;
  const auto count = static_cast<std::int64_t>(items.size());
  for (std::int64_t k = 0; k < count; ++k) {
    // An iteration is a step even when its body is empty.
    work(1);
    Object loop;
    loop.set("index", Value::integer(k + 1));
    loop.set("index0", Value::integer(k));
    loop.set("revindex", Value::integer(count - k));
    loop.set("revindex0", Value::integer(count - k - 1));
    loop.set("first", Value::boolean(k == 0));
    loop.set("last", Value::boolean(k == count - 1));
    loop.set("length", Value::integer(count));
    loop.set("previtem", k > 0 ? items[static_cast<std::size_t>(k - 1)] : Value());
    loop.set("nextitem", k < count - 1 ? items[static_cast<std::size_t>(k + 1)] : Value());
    scope.set("loop", Value::object(std::move(loop)));
    bind(scope, items[static_cast<std::size_t>(k)]);
    try {
      std::string body = block(n.a, scope);
      copied(body.size());
      out += body;
      check_size(out.size());
    } catch (const ContinueSignal&) {
      continue;
    } catch (const BreakSignal&) {
      break;
    }
    ran = true;
  }
  if (!ran) out += block(n.b, scope);
  return out;
}

void Interpreter::bind_params(const NodeList& params, const std::string& name,
                              std::vector<Value>& pos, Object& kw, Env& scope) {
  std::vector<std::pair<std::string, const Node*>> defaults;
  for (std::size_t k = 0; k < params.size(); ++k) {
    const Node& p = *params[k];
    Value v;
    bool given = k < pos.size();
    if (given) v = pos[k];
    if (!given) {
      for (auto it = kw.entries.begin(); it != kw.entries.end(); ++it) {
        if (it->first == p.str) {
          v = it->second;
          given = true;
          kw.entries.erase(it);
          break;
        }
      }
    }
    if (!given && p.kind == NodeKind::kKwarg) defaults.emplace_back(p.str, p.x.get());
    scope.set(p.str, v);
  }
  // Extra arguments are kept in varargs/kwargs, as Jinja does for macros
  // that read them.
  work(params.size() + kw.size());
  scope.set("kwargs", Value::object(kw));
  Array extra;
  for (std::size_t k = params.size(); k < pos.size(); ++k) extra.push_back(pos[k]);
  scope.set("varargs", Value::array(std::move(extra)));
  (void)name;
  for (const auto& [pname, def] : defaults) scope.set(pname, eval(*def, scope));
}

void Interpreter::macro(const Node& n, Env& env) {
  const Node* node = &n;
  env.set(n.str, Value::function([this, node](std::vector<Value>& pos, Object& kw) {
            Env scope(calling_env_);
            bind_params(node->a, node->str, pos, kw, scope);
            return Value::string(block(node->b, scope));
          }));
}

std::string Interpreter::call_block(const Node& n, Env& env) {
  // `caller` reads this block's scope, which ends with the block: a caller
  // kept (in a namespace) and called later is refused, not run on a freed
  // scope.
  auto alive = std::make_shared<bool>(true);
  struct End {
    std::shared_ptr<bool> alive;
    ~End() { *alive = false; }
  } end{alive};
  const Node* node = &n;
  Env* outer = &env;
  Value caller = Value::function([this, node, outer, alive](std::vector<Value>& pos, Object& kw) {
    if (!*alive) fail("caller() is called after its {% call %} block ended");
    Env scope(outer);
    bind_params(node->a, "caller", pos, kw, scope);
    return Value::string(block(node->b, scope));
  });
  const Node& callexpr = *n.x;
  std::vector<Value> pos;
  Object kw;
  args(callexpr.a, env, pos, kw);
  Value fn = eval(*callexpr.x, env);
  if (fn.kind != Kind::kFunction) fail("'call' of something that is not a macro");
  Env with_caller(&env);
  with_caller.set("caller", caller);
  Value v = call_function(fn, pos, kw, &with_caller);
  return v.kind == Kind::kString ? v.s : to_output(v, print_limits());
}

}  // namespace tok::chat
