// The chat-template renderer on arbitrary bytes as a template, rendered for
// a fixed conversation with tight bounds: it parses or refuses, renders or
// refuses, with a one-line error that starts "chat template", and never
// crashes, hangs or exceeds its output bound.
//
// Random bytes rarely make a template that parses, let alone one that nests
// macros, call blocks, namespaces and loops, so libFuzzer is given a
// grammar-aware mutator (LLVMFuzzerCustomMutator): it builds statements and
// expressions from Jinja constructs (tags, filters, macros, call blocks,
// namespaces, loops with break, integer literals near 2^63, slices) and
// inserts them between the tags of the input, replaces a statement with one,
// wraps the input in a block or repeats a piece of it (deep nesting). The
// replay test (replay_jinja, gcc) links the same file and never calls it.
#include <cstdint>
#include <cstring>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "chat/template.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = tok::fuzz::as_view(data, size);
  auto check = [](const tok::Error& e) {
    if (e.message.rfind("chat template", 0) != 0)
      tok::fuzz::fail("jinja", "error does not name the template: " + e.message);
    if (e.message.find('\n') != std::string::npos)
      tok::fuzz::fail("jinja", "error is not one line: " + e.message);
  };
  auto t = tok::chat::Template::parse(text);
  if (!t.ok()) {
    check(t.error());
    return 0;
  }
  static const nlohmann::json ctx = {{"messages",
                                      {{{"role", "system"}, {"content", "Be brief.\n"}},
                                       {{"role", "user"}, {"content", "Ça va ? 🙂"}},
                                       {{"role", "assistant"},
                                        {"content", nullptr},
                                        {"tool_calls", {{{"function", {{"name", "f"}}}}}}}}},
                                     {"add_generation_prompt", true},
                                     {"bos_token", "<s>"},
                                     {"eos_token", "</s>"}};
  tok::chat::Limits limits;
  limits.max_output = 1 << 20;
  limits.max_steps = 200000;
  limits.max_memory = 64 << 20;
  limits.max_range = 10000;
  auto r = t->render(ctx, limits);
  if (!r.ok()) {
    check(r.error());
  } else if (r->size() > limits.max_output) {
    tok::fuzz::fail("jinja", "output beyond the limit");
  }
  return 0;
}

namespace {

// Builds random Jinja: statements of statements and expressions of
// expressions, `depth` bounding how far one call nests.
class Grammar {
 public:
  explicit Grammar(unsigned seed) : rng_(seed) {}

  std::string statements(int depth, int count) {
    std::string out;
    for (int k = 0; k < count; ++k) out += statement(depth);
    return out;
  }

  std::string statement(int depth) {
    if (depth <= 0)
      return pick({"x", "{{ ns.a }}", "{% break %}", "{{ caller() }}", "{# c #}", "\n"});
    int d = depth - 1;
    switch (below(16)) {
      case 0: return pick({"text ", "\n", "<|im_start|>", " "});
      case 1: return "{{ " + expr(d) + " }}";
      case 2:
        return "{% set " + pick({"x", "y", "ns.a", "ns.b", "ns.self", "ns.c"}) + " = " + expr(d) +
               " %}";
      case 3:
        return "{% if " + expr(d) + " %}" + statements(d, 2) +
               (coin() ? "{% elif " + expr(d) + " %}x" : "") +
               (coin() ? "{% else %}" + statement(d) : "") + "{% endif %}";
      case 4:
        return "{% for " + pick({"i", "m", "k, v"}) + " in " + iterable(d) +
               (coin() ? " if " + expr(d) : "") + " %}" + statements(d, 2) +
               (coin() ? "{% if loop.index > 2 %}{% break %}{% endif %}" : "{% continue %}") +
               (coin() ? "{% else %}e" : "") + "{% endfor %}";
      case 5:
        return "{% macro " + pick({"m", "f", "g"}) + "(" +
               pick({"", "a", "a, b=" + expr(d), "n=3"}) + ") %}" + statements(d, 2) +
               "{% endmacro %}";
      case 6:
        return std::string("{% call") + (coin() ? "(y) " : " ") + pick({"m", "f", "g"}) + "(" +
               args(d) + ") %}" + statements(d, 2) + "{% endcall %}";
      case 7:
        return "{% filter " + pick({"upper", "trim", "indent(2)", "replace('a', 'b')"}) + " %}" +
               statements(d, 2) + "{% endfilter %}";
      case 8:
        return "{% set ns = namespace(" + pick({"a=1", "a=[]", "self=none", "a=1, b='s'"}) + ") %}";
      case 9: return "{% set " + pick({"x", "b"}) + " %}" + statements(d, 2) + "{% endset %}";
      case 10: return "{% set ns.self = ns %}";
      case 11: return "{% set ns.c = caller %}";
      case 12: return "{% set ns.a = [ns.a] %}";
      case 13: return "{% set ns.a = ns.a + ns.a %}";
      case 14: return "{{ " + pick({"m", "f", "g", "caller", "ns.c"}) + "(" + args(d) + ") }}";
      default:
        return pick(
            {"{% break %}", "{% continue %}", "{# note #}", "{%- if true -%}x{%- endif -%}"});
    }
  }

  std::string expr(int depth) {
    if (depth <= 0) return atom();
    int d = depth - 1;
    switch (below(12)) {
      case 0:
      case 1: return atom();
      case 2:
        return "(" + expr(d) + " " +
               pick({"+", "-", "*", "/", "//", "%", "**", "~", "==", "!=", "<", ">=", "and", "or",
                     "in", "not in"}) +
               " " + expr(d) + ")";
      case 3: return pick({"-", "not ", "+"}) + "(" + expr(d) + ")";
      case 4: return expr(d) + "|" + filter(d);
      case 5: return "(" + expr(d) + ")[" + slice(d) + "]";
      case 6: return "(" + expr(d) + ")[" + expr(d) + "]";
      case 7: return "[" + expr(d) + ", " + expr(d) + "]";
      case 8: return "{'k': " + expr(d) + ", " + atom() + ": " + expr(d) + "}";
      case 9: return "(" + expr(d) + " if " + expr(d) + " else " + expr(d) + ")";
      case 10:
        return expr(d) + " is " +
               pick({"defined", "none", "string", "integer", "mapping", "odd", "not callable"});
      default:
        return pick({"m", "f", "g", "caller", "range", "namespace", "ns.c", "ns.a.get",
                     "'a b'.split", "{'a': 1}.items"}) +
               "(" + args(d) + ")";
    }
  }

 private:
  std::string atom() {
    switch (below(4)) {
      case 0:
        return pick({"0", "1", "-1", "2", "3", "40", "999999", "9223372036854775807",
                     "-9223372036854775807", "(-9223372036854775807 - 1)", "2**63", "2**64",
                     "2**62", "3037000500", "18446744073709551616"});
      case 1:
        return pick({"1.5", "0.0", "-0.0", "1e300", "'9223372036854775807'|int", "'x'", "''",
                     "'é🙂'", "'a,b'"});
      case 2:
        return pick(
            {"[]", "[1, 2, 3]", "{}", "{'a': 1}", "none", "true", "range(5)", "range(10000)"});
      default:
        return pick({"ns", "ns.a", "ns.self", "ns.c", "x", "y", "i", "loop", "loop.index",
                     "messages", "messages[0]", "messages[-1].content", "caller", "varargs",
                     "kwargs", "m", "undefined_name", "bos_token"});
    }
  }

  std::string iterable(int d) {
    std::string it =
        pick({"messages", "range(3)", "range(1000)", "ns.a", "[1, 2]", "{'a': 1}.items()", "x"});
    if (coin()) {
      it += '|';
      it += filter(d);
    }
    return it;
  }

  std::string filter(int d) {
    switch (below(3)) {
      case 0:
        return pick({"tojson", "unique", "sort", "length", "list", "reverse", "first", "last",
                     "int", "abs", "string", "items", "trim", "upper", "float", "safe", "join"});
      case 1:
        return pick({"join(',')", "tojson(indent=2)", "tojson(sort_keys=true)", "indent(4)",
                     "replace('a', 'bb')", "default('d')", "map(attribute='role')",
                     "selectattr('role')", "rejectattr('content')", "sort(attribute='role')",
                     "int(7)"});
      default: return "default(" + expr(d) + ")";
    }
  }

  std::string slice(int d) {
    switch (below(4)) {
      case 0:
        return "::" + pick({"-1", "2", "9223372036854775807", "(-9223372036854775807 - 1)", "0"});
      case 1: return "1:";
      case 2: return expr(d) + ":" + expr(d);
      default: return ":" + expr(d) + ":" + expr(d);
    }
  }

  std::string args(int d) {
    switch (below(4)) {
      case 0: return "";
      case 1: return expr(d);
      case 2: return expr(d) + ", " + pick({"a=1", "b=" + expr(d), "*[1, 2]", "**{'a': 2}"});
      default: return pick({"98", "n - 1", "a", "3"});
    }
  }

  std::string pick(std::initializer_list<std::string> options) {
    return *(options.begin() + below(static_cast<unsigned>(options.size())));
  }
  unsigned below(unsigned n) { return std::uniform_int_distribution<unsigned>(0, n - 1)(rng_); }
  bool coin() { return below(2) == 0; }

  std::mt19937 rng_;
};

// Offsets where a statement can go: the start, the end, and after each tag.
std::vector<std::size_t> boundaries(const std::string& s) {
  std::vector<std::size_t> out = {0, s.size()};
  for (std::size_t p = 0; p + 1 < s.size(); ++p) {
    if ((s[p] == '%' || s[p] == '}' || s[p] == '#') && s[p + 1] == '}') out.push_back(p + 2);
  }
  return out;
}

}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  Grammar g(seed);
  std::mt19937 rng(seed ^ 0x9e3779b9u);
  auto below = [&](std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
  };
  std::string s(reinterpret_cast<const char*>(data), size);
  std::vector<std::size_t> cut = boundaries(s);
  std::size_t a = cut[below(cut.size())], b = cut[below(cut.size())];
  if (a > b) std::swap(a, b);
  switch (below(6)) {
    case 0: s = g.statements(4, 1 + static_cast<int>(below(4))); break;
    case 1: s.insert(a, g.statement(1 + static_cast<int>(below(4)))); break;
    case 2: s.replace(a, b - a, g.statement(1 + static_cast<int>(below(3)))); break;
    case 3: {
      // Wrap the input in a block: nesting grows with each mutation.
      static const char* const kOpen[][2] = {
          {"{% if true %}", "{% endif %}"},
          {"{% for i in range(3) %}", "{% endfor %}"},
          {"{% macro m(n=3) %}", "{% endmacro %}{{ m() }}"},
          {"{% call m(1) %}", "{% endcall %}"},
          {"{% filter upper %}", "{% endfilter %}"},
          {"{% set b %}", "{% endset %}{{ b }}"},
      };
      const auto& w = kOpen[below(std::size(kOpen))];
      s = w[0] + s + w[1];
      break;
    }
    case 4: {
      // Repeat a piece: deep or long structures from a short seed.
      std::string piece = s.substr(a, b - a);
      std::size_t times = 1 + below(16);
      std::string rep;
      for (std::size_t k = 0; k < times && rep.size() + piece.size() <= max_size; ++k) rep += piece;
      s.replace(a, b - a, rep);
      break;
    }
    default: s.insert(a, "{{ " + g.expr(1 + static_cast<int>(below(4))) + " }}"); break;
  }
  if (s.size() > max_size) s = g.statements(2, 1);
  if (s.size() > max_size) s.clear();
  std::memcpy(data, s.data(), s.size());
  return s.size();
}
