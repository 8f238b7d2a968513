#include "chat/template.hpp"

#include <ctime>

#include "chat/ast.hpp"
#include "chat/lexer.hpp"
#include "chat/parser.hpp"

namespace tok::chat {

namespace {

using Args = std::vector<Value>;

Value range_fn(Interpreter& in, Args& a) {
  if (a.empty() || a.size() > 3) in.fail("range() takes one to three integers");
  for (const auto& v : a) {
    if (v.kind != Kind::kInt) in.fail("range() takes integers");
  }
  std::int64_t start = a.size() == 1 ? 0 : a[0].i, stop = a.size() == 1 ? a[0].i : a[1].i;
  std::int64_t step = a.size() == 3 ? a[2].i : 1;
  if (step == 0) in.fail("range() step must not be zero");
  // The count first, in 128 bits: neither the bounds nor a step near 2^63
  // may wrap, and nothing is allocated past the limit.
  __int128 span = step > 0 ? __int128{stop} - start : __int128{start} - stop;
  __int128 mag = step > 0 ? __int128{step} : -__int128{step};
  __int128 count = span <= 0 ? 0 : (span + mag - 1) / mag;
  if (count > static_cast<__int128>(in.limits().max_range)) {
    in.fail("range() makes more than " + std::to_string(in.limits().max_range) + " items");
  }
  auto n = static_cast<std::size_t>(count);
  in.built(n * sizeof(Value));
  Array out;
  out.reserve(n);
  for (std::size_t k = 0; k < n; ++k)
    out.push_back(Value::integer(static_cast<std::int64_t>(start + __int128{step} * k)));
  return Value::array(std::move(out));
}

Value namespace_fn(Interpreter& in, Args& a, Object& kw) {
  if (a.size() > 1) in.fail("namespace() takes at most one positional argument");
  Object o;
  if (a.size() == 1) {
    if (a[0].kind == Kind::kObject) {
      in.work(a[0].obj->size());
      o = *a[0].obj;
    } else if (a[0].kind == Kind::kArray) {
      for (const auto& pair : *a[0].arr) {
        in.work(o.size() + 1);
        if (pair.kind != Kind::kArray || pair.arr->size() != 2 ||
            (*pair.arr)[0].kind != Kind::kString) {
          in.fail("namespace() takes an object or [key, value] pairs");
        }
        o.set((*pair.arr)[0].s, (*pair.arr)[1]);
      }
    } else {
      in.fail("namespace() takes an object or [key, value] pairs");
    }
  }
  for (const auto& [k, v] : kw.entries) o.set(k, v);
  return in.make_namespace(std::move(o));
}

void set_globals(Interpreter& in, Env& env) {
  env.set("true", Value::boolean(true));
  env.set("false", Value::boolean(false));
  env.set("True", Value::boolean(true));
  env.set("False", Value::boolean(false));
  env.set("none", Value::none());
  env.set("None", Value::none());
  env.set("range", Value::function([&in](Args& a, Object&) { return range_fn(in, a); }));
  env.set("namespace",
          Value::function([&in](Args& a, Object& kw) { return namespace_fn(in, a, kw); }));
  env.set("raise_exception", Value::function([&in](Args& a, Object&) -> Value {
            in.fail("raise_exception: " +
                    (a.empty() ? std::string() : to_js_string(a[0], in.print_limits())));
          }));
  env.set("strftime_now", Value::function([&in](Args& a, Object&) {
            if (a.empty() || a[0].kind != Kind::kString)
              in.fail("strftime_now() takes a format string");
            std::time_t t = std::time(nullptr);
            std::tm tm{};
            localtime_r(&t, &tm);
            char buf[256];
            std::size_t n = std::strftime(buf, sizeof buf, a[0].s.c_str(), &tm);
            return Value::string(std::string(buf, n));
          }));
}

// Error text on one line: templates' messages may carry newlines.
std::string one_line(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return s;
}

}  // namespace

Template::Template() = default;
Template::Template(Template&&) noexcept = default;
Template& Template::operator=(Template&&) noexcept = default;
Template::~Template() = default;

Result<Template> Template::parse(std::string_view text) {
  auto p = parse_template(text);
  if (!p.ok()) return make_error("chat template: {}", one_line(p.error().message));
  Template t;
  t.program_ = std::make_unique<Program>(std::move(p).value());
  return t;
}

Result<std::string> Template::render(const nlohmann::json& context, const Limits& limits) const {
  Interpreter in(limits);
  Env globals;
  set_globals(in, globals);
  if (context.is_object()) {
    for (auto it = context.begin(); it != context.end(); ++it)
      globals.set(it.key(), from_json(it.value()));
  }
  std::size_t line = 0;
  std::string what;
  try {
    return in.run(*program_, globals);
  } catch (const RenderError& e) {
    line = program_->line_of(in.error_pos());
    what = one_line(e.message);
  } catch (const std::bad_alloc&) {
    return make_error("chat template: out of memory while rendering");
  } catch (...) {
    // break/continue outside a loop unwinds to here.
    line = program_->line_of(in.error_pos());
    what = "'break' or 'continue' outside a loop";
  }
  return make_error("chat template: {} (line {})", what, line);
}

Result<std::string> apply_chat_template(std::string_view template_text, const ChatInputs& in) {
  TOK_ASSIGN(Template t, Template::parse(template_text));
  nlohmann::json ctx = {{"messages", in.messages},
                        {"add_generation_prompt", in.add_generation_prompt},
                        {"bos_token", in.bos_token},
                        {"eos_token", in.eos_token}};
  return t.render(ctx);
}

}  // namespace tok::chat
