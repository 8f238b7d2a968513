#!/usr/bin/env bash
# Hostile chat templates (issue 42): a GGUF's tokenizer.chat_template is
# untrusted input. Each template here crashed tok, hung it or ate its memory
# before rendering had one budget for time, memory and stack; now each is one
# line "tok: error: FILE: chat template: WHAT (line L)", exit 1, within
# seconds, in `generate --print-prompt` (and the first also in `count --chat`,
# from a vocabulary whose tokenizer_config.json carries the template).
source "$TOK_ROOT/tests/cli/lib.sh"
vocab="$TOK_ROOT/vocab/qwen3"
echo '[{"role": "user", "content": "hi"}]' >"$T/msgs.json"

# hostile NAME PATTERN TEMPLATE: generate refuses TEMPLATE with one line
# matching PATTERN, naming the file and the line, in under 60 s.
hostile() {
  local name=$1 pat=$2 tpl=$3
  printf '%s' "$tpl" >"$T/$name.jinja"
  expect_error 1 "$name.jinja: chat template: $pat \(line [0-9]+\)\$" \
    timeout 60 "$TOK" generate --print-prompt --system '' --chat-template-file "$T/$name.jinja" x
}
# hostile_count NAME PATTERN TEMPLATE: so do generate and count --chat.
hostile_count() {
  local name=$1 pat=$2 tpl=$3
  hostile "$name" "$pat" "$tpl"
  mkdir -p "$T/v-$name"
  ln -sf "$vocab/tokenizer.json" "$T/v-$name/tokenizer.json"
  /usr/bin/python3 -c 'import json, sys; json.dump({"chat_template": open(sys.argv[1]).read()}, open(sys.argv[2], "w"))' \
    "$T/$name.jinja" "$T/v-$name/tokenizer_config.json" || fail "$name: writing the config"
  expect_error 1 "tokenizer_config.json: chat template: $pat \(line [0-9]+\)\$" \
    timeout 60 "$TOK" count -q --chat "$T/msgs.json" -e "$T/v-$name/tokenizer.json"
}

# 1. A namespace stored in itself, printed.
hostile_count cycle "value nests too deeply.*" \
  '{% set ns = namespace(a=1) %}{% set ns.self = ns %}{{ ns|tojson }}'
# 2. A list wrapped in a list 300,000 times, printed (and freed).
hostile deep "value nests too deeply.*" \
  '{% set ns = namespace(x=[]) %}{% for i in range(300000) %}{% set ns.x = [ns.x] %}{% endfor %}{{ ns.x|tojson }}'
# 3. Macro recursion (98 calls) and 160 nested ifs in each.
ifs=$(printf '{%% if true %%}%.0s' $(seq 160)); ends=$(printf '{%% endif %%}%.0s' $(seq 160))
# (Under a sanitizer the stack check may speak first: both are the one bound.)
hostile stack "the template nests (deeper than 1000 levels|too deeply for the stack).*" \
  "{% macro f(n) %}{% if n > 0 %}$ifs{{ f(n - 1) }}$ends{% endif %}{% endmacro %}{{ f(98) }}"
# 4. caller kept in a namespace, called after its macro returned.
hostile caller "caller\(\) is called after its \{% call %\} block ended" \
  '{% set ns = namespace() %}{% macro m() %}{% set ns.c = caller %}{{ caller() }}{% endmacro %}{% call m() %}x{% endcall %}{{ ns.c() }}'
# 5. INT64_MIN % -1 and 2**63; a slice step of 2^63-1 works.
hostile modulo "integer overflow in '\*\*'.*" '{{ (2**63) % -1 }}'
printf '%s' '{{ [1,2,3][1::("9223372036854775807"|int)] }}' >"$T/step.jinja"
expect_eq "slice step 2^63-1" "[2]" "$("$TOK" generate --print-prompt --system '' --chat-template-file "$T/step.jinja" x)"
# 6. A list doubled 40 times.
hostile doubling "the template's values take more than 256 MiB" \
  '{% set ns = namespace(l=[1]) %}{% for i in range(40) %}{% set ns.l = ns.l + ns.l %}{% endfor %}'
# 7. unique on range(999999): quadratic work in one filter call.
hostile unique "the template takes more than 5000000 steps" '{{ range(999999)|unique|length }}'
# 8. break inside a macro, 1200 times, then a one-level call.
printf '%s' '{% macro m() %}{% break %}{% endmacro %}{% macro one() %}1{% endmacro %}{% for j in range(1200) %}{% for i in [1] %}{{ m() }}{% endfor %}{% endfor %}{{ one() }}' >"$T/break.jinja"
expect_eq "break in a macro" "1" "$("$TOK" generate --print-prompt --system '' --chat-template-file "$T/break.jinja" x)"
echo ok
