// Chat-template renderer: exact tiny cases, each written against what
// @huggingface/jinja renders (checked by hand or by construction), then
// errors and bounds.
#include <doctest/doctest.h>

#include "chat/template.hpp"

using nlohmann::json;
using tok::chat::Template;

namespace {

std::string render(const std::string& tpl, const json& ctx = json::object()) {
  auto t = Template::parse(tpl);
  REQUIRE_MESSAGE(t.ok(), (t.ok() ? "" : t.error().message));
  auto r = t->render(ctx);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  return *r;
}

std::string error_of(const std::string& tpl, const json& ctx = json::object()) {
  auto t = Template::parse(tpl);
  if (!t.ok()) return t.error().message;
  auto r = t->render(ctx);
  REQUIRE_FALSE(r.ok());
  return r.error().message;
}

}  // namespace

TEST_CASE("text and expressions render; one trailing newline of the template is dropped") {
  CHECK(render("hello\n") == "hello");
  CHECK(render("{{ 'a' + 'b' }}{{ 1 + 2 }}{{ 7 // 2 }}{{ 7 / 2 }}{{ 2.0 }}") == "ab333.52.0");
  CHECK(render("{{ x }}|{{ y.z }}|{{ none }}", {{"x", "v"}}) == "v||");
  CHECK(render("{{ true }} {{ [1, 'a'] }} {{ {'k': 1} }}") == "true [1, \"a\"] {\"k\": 1}");
  CHECK(render("{{ 'a' ~ 1 ~ none is none }}") == "a1true");
}

TEST_CASE("numbers print as JavaScript prints them; floats with no fraction keep .0") {
  CHECK(render("{{ 1.5 }} {{ 0.1 + 0.2 }} {{ 3 * 1.0 }} {{ 'a' + 1.0 }} {{ [1.0, 2.5] }} {{ 1.0 | "
               "tojson }} {{ -3 }} "
               "{{ 5 - -3 }} {{ 7 % 3 }} {{ -7 // 2 }}") ==
        "1.5 0.30000000000000004 3.0 a1 [1, 2.5] 1 -3 8 1 -4");
  CHECK(render("{{ 'a' == 'a' }}{{ 1 == 1.0 }}{{ x == none }}{{ '1' == 1 }}") ==
        "truetruetruetrue");
  json ctx = {{"x", {{"a", 1.0}, {"b", {true, nullptr}}, {"c", "q\"\n\x01"}}}};
  CHECK(render("{{ x | tojson }}", ctx) ==
        "{\"a\": 1, \"b\": [true, null], \"c\": \"q\\\"\\n\\u0001\"}");
}

TEST_CASE("whitespace control: {%- -%}, trim_blocks and lstrip_blocks") {
  CHECK(render("a  {%- if true -%}  b  {%- endif -%}  c") == "abc");
  CHECK(render("{% if true %}\nx\n{% endif %}\ny") == "x\ny");
  CHECK(render("a\n    {% if true %}b{% endif %}") == "a\nb");
  CHECK(render("{{ 'a' }}\n{{ 'b' }}") == "a\nb");
  CHECK(render("x {{- ' y' -}} \n z") == "x yz");
  CHECK(render("{# note #}a{#- x -#}  b") == "ab");
}

TEST_CASE("for loops: loop variables, else, filters in the header, unpacking, break") {
  json ctx = {{"xs", {"a", "b", "c"}}};
  CHECK(render("{% for x in xs %}{{ loop.index0 }}{{ x }}{% if loop.first %}F{% endif %}"
               "{% if loop.last %}L{% endif %}{% endfor %}",
               ctx) == "0aF1b2cL");
  CHECK(render("{% for x in [] %}x{% else %}empty{% endfor %}") == "empty");
  CHECK(render("{% for x in xs if x != 'b' %}{{ x }}{{ loop.length }}{% endfor %}", ctx) == "a2c2");
  CHECK(render("{% for k, v in {'a': 1, 'b': 2}.items() %}{{ k }}={{ v }};{% endfor %}") ==
        "a=1;b=2;");
  CHECK(render("{% for x in xs %}{% if x == 'b' %}{% break %}{% endif %}{{ x }}{% endfor %}",
               ctx) == "a");
  CHECK(render("{% for x in xs[::-1] %}{{ x }}{% endfor %}{{ xs[1:] }}", ctx) ==
        "cba[\"b\", \"c\"]");
}

TEST_CASE("set: scoping as in Jinja, namespaces, block set, tuples") {
  CHECK(render("{% set x = 1 %}{% for i in [1, 2] %}{% set x = i %}{% endfor %}{{ x }}") == "1");
  CHECK(render("{% set ns = namespace(x=1) %}{% for i in [1, 2] %}{% set ns.x = ns.x + i %}{% "
               "endfor %}{{ ns.x }}") == "4");
  CHECK(render("{% set b %}in {{ 'block' }}{% endset %}[{{ b }}]") == "[in block]");
  CHECK(render("{% set a, b = [1, 2] %}{{ b }}{{ a }}") == "21");
  CHECK(render("{% if true %}{% set y = 5 %}{% endif %}{{ y }}") == "5");
}

TEST_CASE("filters") {
  CHECK(
      render(
          "{{ '  x \\n' | trim }}|{{ 'ab' | upper }}|{{ 'AB' | lower }}|{{ [1,2,3] | length }}") ==
      "x|AB|ab|3");
  CHECK(render("{{ [1, 2] | first }}{{ [1, 2] | last }}{{ ['a', 'b'] | join(', ') }}{{ 'a-b' | "
               "replace('-', '+') }}") == "12a, ba+b");
  CHECK(render("{{ x | default('d') }}{{ '' | default('e', true) }}{{ '5' | int + 1 }}{{ 3 | "
               "string }}") == "de63");
  CHECK(render("{{ {'a': [1, 'é'], 'b': none} | tojson }}") == "{\"a\": [1, \"é\"], \"b\": null}");
  CHECK(render("{{ {'a': 1} | tojson(indent=2) }}") == "{\n  \"a\": 1\n}");
  json ctx = {{"ms", {{{"role", "user"}, {"n", 1}}, {{"role", "tool"}}}}};
  CHECK(render("{{ ms | selectattr('role', 'equalto', 'user') | list | length }}", ctx) == "1");
  CHECK(render("{{ ms | selectattr('n') | length }}{{ ms | rejectattr('n') | length }}", ctx) ==
        "11");
  CHECK(render("{{ ms | map(attribute='role') | join(',') }}", ctx) == "user,tool");
  CHECK(render("{{ [3, 1, 2] | sort | list }}{{ 'ab' | length }}") == "[1, 2, 3]2");
}

TEST_CASE("tests and string methods") {
  CHECK(render("{{ x is defined }}{{ y is not defined }}{{ none is none }}{{ 'a' is string }}{{ {} "
               "is mapping }}",
               {{"x", 1}}) == "truetruetruetruetrue");
  CHECK(render("{{ 'Hello'.startswith('He') }}{{ 'Hello'.endswith(('x', 'lo')) }}") == "truetrue");
  CHECK(render("{{ ' a b '.split() }}{{ 'a,b'.split(',') }}{{ '\\n x\\n'.strip() }}") ==
        "[\"a\", \"b\"][\"a\", \"b\"]x");
  CHECK(render("{{ 'x</think>\\n\\ny'.split('</think>')[-1].lstrip('\\n') }}") == "y");
  CHECK(render("{{ 'think' in 'rethink' }}{{ 'a' in ['a'] }}{{ 'k' in {'k': 1} }}{{ 'z' not in "
               "'abc' }}") == "truetruetruetrue");
  CHECK(render("{{ 'héllo'[1] }}{{ 'héllo'[1:3] }}") == "éél");
}

TEST_CASE("ternaries, macros, raise_exception") {
  CHECK(render("{{ 'a' if x else 'b' }}{{ 'c' if not x }}", {{"x", false}}) == "bc");
  CHECK(render("{% macro m(a, b='d') %}{{ a }}{{ b }}{% endmacro %}{{ m(1) }}{{ m(1, b=2) }}") ==
        "1d12");
  std::string e = error_of("line one\n{{ raise_exception('roles must alternate') }}");
  CHECK(e == "chat template: raise_exception: roles must alternate (line 2)");
}

TEST_CASE("unsupported constructs are errors naming them") {
  CHECK(error_of("{% include 'x' %}").find("unsupported statement '{% include %}'") !=
        std::string::npos);
  CHECK(error_of("{{ 'a' | wordcount }}").find("unsupported filter 'wordcount'") !=
        std::string::npos);
  CHECK(error_of("{{ 1 is prime }}").find("unsupported test 'prime'") != std::string::npos);
  CHECK(error_of("{{ 'a'.zfill(3) }}").find("method 'zfill'") != std::string::npos);
  CHECK(error_of("{% if x %}").find("never closed") != std::string::npos);
  std::string lex = error_of("a\n{{ 'unterminated }}");
  CHECK(lex.rfind("chat template: ", 0) == 0);
  CHECK(lex.ends_with(" (line 2)"));
}

TEST_CASE("hostile templates end with an error, not a crash or a hang") {
  CHECK(error_of("{{ " + std::string(100000, '(') + "1" + std::string(100000, ')') + " }}")
            .find("nests deeper") != std::string::npos);
  std::string chain = "{{ x";
  for (int i = 0; i < 100000; ++i) chain += ".a";
  CHECK(error_of(chain + " }}").find("nests deeper") != std::string::npos);
  CHECK(
      error_of("{% set s = 'ab' %}{% for i in range(100) %}{% set s = s + s %}{% endfor %}{{ s }}")
          .find("exceeds") != std::string::npos);
  CHECK(error_of("{% for i in range(100000000) %}{% endfor %}").find("range()") !=
        std::string::npos);
  CHECK(error_of("{% for i in range(3000) %}{% for j in range(3000) %}{% endfor %}{% endfor %}")
            .find("steps") != std::string::npos);
  CHECK(error_of("{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}").find("the template nests ") !=
        std::string::npos);
  CHECK(error_of("{% break %}").find("outside a loop") != std::string::npos);
}

// Issue 42: a template is untrusted input; each of these crashed, hung or
// exhausted memory before rendering had one budget for time, memory and stack.

TEST_CASE("a namespace that holds itself is refused when printed, not followed for ever") {
  std::string cycle = "{% set ns = namespace(a=1) %}{% set ns.self = ns %}";
  CHECK(error_of(cycle + "{{ ns|tojson }}").find("value nests too deeply") != std::string::npos);
  CHECK(error_of(cycle + "{{ ns }}").find("value nests too deeply") != std::string::npos);
  CHECK(error_of(cycle + "{{ [ns] ~ 'x' }}").find("value nests too deeply") != std::string::npos);
  CHECK(render(cycle + "{{ ns.self.self.a }}") == "1");
}

TEST_CASE("a list wrapped 300,000 times is freed without recursion and refused when printed") {
  std::string deep =
      "{% set ns = namespace(x=[]) %}{% for i in range(300000) %}{% set ns.x = [ns.x] %}{% endfor "
      "%}";
  CHECK(render(deep + "{{ ns.x|length }}") == "1");
  CHECK(error_of(deep + "{{ ns.x|tojson }}").find("value nests too deeply") != std::string::npos);
  // The same depth through objects and their bound `get` methods.
  CHECK(render("{% set ns = namespace(o={}) %}{% for i in range(200000) %}{% set ns.o = {'g': "
               "ns.o.get} %}"
               "{% endfor %}ok") == "ok");
  // A shared list doubled 40 times prints as 2^40 items: the output bound stops it.
  CHECK(error_of("{% set ns = namespace(a=[1]) %}{% for i in range(40) %}{% set ns.a = [ns.a, "
                 "ns.a] %}{% endfor %}"
                 "{{ ns.a|tojson }}")
            .find("output exceeds") != std::string::npos);
}

TEST_CASE("macro recursion and nested blocks share one depth bound") {
  std::string ifs, ends;
  for (int i = 0; i < 160; ++i) {
    ifs += "{% if true %}";
    ends += "{% endif %}";
  }
  std::string tpl = "{% macro f(n) %}{% if n > 0 %}" + ifs + "{{ f(n - 1) }}" + ends +
                    "{% endif %}{% endmacro %}{{ f(98) }}";
  // The depth count, or under a sanitizer's larger frames the stack check.
  CHECK(error_of(tpl).find("the template nests ") != std::string::npos);
  // A shallow recursion still renders.
  CHECK(
      render(
          "{% macro f(n) %}{% if n > 0 %}{{ n }}{{ f(n - 1) }}{% endif %}{% endmacro %}{{ f(50) }}")
          .starts_with("5049"));
}

TEST_CASE("a caller kept after its call block ended is refused") {
  std::string tpl =
      "{% set ns = namespace() %}{% macro m() %}{% set ns.c = caller %}[{{ caller() }}]{% endmacro "
      "%}"
      "{% call m() %}x{% endcall %}";
  CHECK(render(tpl) == "[x]");
  CHECK(error_of(tpl + "{{ ns.c() }}").find("after its {% call %} block ended") !=
        std::string::npos);
}

TEST_CASE("integer arithmetic is exact in 64 bits and refuses what overflows") {
  CHECK(error_of("{{ (2**63) % -1 }}").find("integer overflow") != std::string::npos);
  CHECK(error_of("{{ 2**63 }}").find("integer overflow in '**'") != std::string::npos);
  CHECK(error_of("{{ 2**64 }}").find("integer overflow in '**'") != std::string::npos);
  CHECK(render("{{ 2**62 }} {{ 2**-1 }} {{ (-2)**63 }}") ==
        "4611686018427387904 0.5 -9223372036854775808");
  CHECK(render("{{ 9223372036854775807 }} {{ -9223372036854775807 - 1 }}") ==
        "9223372036854775807 -9223372036854775808");
  CHECK(error_of("{{ 9223372036854775807 + 1 }}").find("integer overflow in '+'") !=
        std::string::npos);
  CHECK(error_of("{{ 3037000500 * 3037000500 }}").find("integer overflow in '*'") !=
        std::string::npos);
  CHECK(error_of("{{ (-9223372036854775807 - 1) // -1 }}").find("integer overflow in '//'") !=
        std::string::npos);
  CHECK(render("{{ (-9223372036854775807 - 1) % -1 }} {{ -7 % 3 }} {{ -7 // 2 }}") == "0 -1 -4");
  CHECK(error_of("{{ -(-9223372036854775807 - 1) }}").find("integer overflow") !=
        std::string::npos);
  CHECK(error_of("{{ (-9223372036854775807 - 1)|abs }}").find("integer overflow") !=
        std::string::npos);
  CHECK(error_of("{{ (10.0 ** 300)|int }}").find("integer overflow") != std::string::npos);
  CHECK(error_of("{{ '99999999999999999999'|int }}").find("integer overflow") != std::string::npos);
}

TEST_CASE("slices and range with steps and bounds near 2^63") {
  CHECK(render("{{ [1,2,3][1::(\"9223372036854775807\"|int)] }}") == "[2]");
  CHECK(render("{{ [1,2,3][::-9223372036854775807 - 1] }}") == "[3]");
  CHECK(render("{{ 'abc'[1::9223372036854775807] }}") == "b");
  CHECK(render("{{ range(9223372036854775806, 9223372036854775807, 5) }}") ==
        "[9223372036854775806]");
  CHECK(render("{{ range(-9223372036854775807 - 1, 9223372036854775807, "
               "9223372036854775807)|length }}") == "3");
  CHECK(error_of("{{ range(-9223372036854775807 - 1, 9223372036854775807) }}")
            .find("range() makes more") != std::string::npos);
}

TEST_CASE("values have a memory bound: a list doubled 40 times is refused") {
  CHECK(error_of("{% set ns = namespace(l=[1]) %}{% for i in range(40) %}{% set ns.l = ns.l + ns.l "
                 "%}{% endfor %}")
            .find("values take more than 256 MiB") != std::string::npos);
}

TEST_CASE("a filter's work counts: unique on 999,999 items is refused, not run for hours") {
  CHECK(error_of("{{ range(999999)|unique|length }}").find("steps") != std::string::npos);
  CHECK(render("{{ [3, 1, 3, 2, 1]|unique|list }}") == "[3, 1, 2]");
}

TEST_CASE("a break inside a macro does not leak the call depth") {
  std::string tpl =
      "{% macro m() %}{% break %}{% endmacro %}{% macro one() %}1{% endmacro %}"
      "{% for j in range(1200) %}{% for i in [1] %}{{ m() }}{% endfor %}{% endfor %}{{ one() }}";
  CHECK(render(tpl) == "1");
}
