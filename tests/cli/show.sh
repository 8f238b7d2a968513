# tok show: token spans, colour rules, alignment, summary numbers, HTML page.
source "$(dirname "$0")/lib.sh"

# Spans tile the input byte for byte (invalid UTF-8 and split characters
# included): the hex bytes of all spans in --json, joined, are the input.
printf 'caf\xc3\xa9 \xff\xfe \xe4\xbd\xa0\xe5\xa5\xbd\t<|endoftext|>\n\xf0\x9f\x98\x80 end' >"$T/mixed.txt"
hex_of() { od -An -tx1 -v "$1" | tr -d ' \n'; }
spans_hex() { grep -o '"bytes":"[0-9a-f]*"' "$1" | sed 's/"bytes":"\(.*\)"/\1/' | tr -d '\n'; }
for enc in o200k_base cl100k_base r50k_base; do
  expect_status 0 "$TOK" show -e $enc --json "$T/mixed.txt"
  cp "$T/out" "$T/spans.json"
  expect_eq "spans of $enc tile the input" "$(hex_of "$T/mixed.txt")" "$(spans_hex "$T/spans.json")"
  n_spans=$(grep -o '"id":' "$T/spans.json" | wc -l)
  expect_eq "span count = tok count ($enc)" "$("$TOK" count -q -e $enc "$T/mixed.txt")" "$n_spans"
done

# The plain (no-colour) view: tokens separated by │, spaces as ·, newline ↵.
expect_eq "plain view" "hello│·world" "$("$TOK" show --color never -t 'hello world' | head -1)"
expect_eq "visible tab, newline, zero-width" "a│→b│↵" \
  "$(printf 'a\tb\n' | "$TOK" show --color never -e cl100k_base | head -1)"
expect_eq "ids" "hello₂₄₉₁₂│·world₂₃₇₅" "$("$TOK" show --color never --ids -t 'hello world' | head -1)"
out=$(printf '\xe2\x80\x8d' | "$TOK" show --color never | head -1)
[[ "$out" == *"⟨ZWJ⟩"* ]] || fail "zero-width joiner not drawn: $out"
out=$(printf '\xe4\xbd' | "$TOK" show --color never | head -1)
[[ "$out" == *"⟨e4 bd⟩"* ]] || fail "partial UTF-8 not drawn as hex: $out"

# Colour: off when piped (auto), on with --color always (even with NO_COLOR),
# off with --color never; on a terminal, off with NO_COLOR.
esc=$'\x1b['
out=$("$TOK" show -t hi); [[ "$out" != *"$esc"* ]] || fail "colour in a pipe"
out=$("$TOK" show --color always -t hi); [[ "$out" == *"$esc"* ]] || fail "no colour with --color always"
out=$(NO_COLOR=1 "$TOK" show --color always -t hi); [[ "$out" == *"$esc"* ]] || fail "--color always loses to NO_COLOR"
out=$(TERM=xterm-256color "$TOK" show --color always -t hi); [[ "$out" == *"48;5;"* ]] || fail "no 256 colours"
out=$(TERM=xterm COLORTERM= "$TOK" show --color always -t hi); [[ "$out" == *"${esc}30;4"* ]] || fail "no basic colours"
if command -v script >/dev/null; then
  out=$(TERM=xterm-256color script -qec "$TOK show hi" /dev/null)
  [[ "$out" == *"$esc"* ]] || fail "no colour on a terminal"
  out=$(NO_COLOR=1 TERM=xterm-256color script -qec "$TOK show hi" /dev/null)
  [[ "$out" != *"48;5;"* ]] || fail "colour on a terminal with NO_COLOR"
else
  echo "show.sh: note: 'script' (util-linux) missing; terminal colour checks not run" >&2
fi

# Two vocabularies, aligned on the text.
"$TOK" show --color never -e o200k_base -e r50k_base -t $'    x = 1\nend' >"$T/two"
# o200k takes the three spaces as one token, r50k as three: o200k's row is
# padded after "···" so that " x" starts in the same column in both rows.
expect_eq "aligned rows" "o200k_base ···  │·x│·=│·│1│↵
r50k_base  ·│·│·│·x│·=│·1 │↵

o200k_base end
r50k_base  end" "$(sed -n 1,5p "$T/two")"

# Summary: tokens equal tok count; characters are grapheme clusters.
"$TOK" show --json -e cl100k_base "$T/mixed.txt" >"$T/s.json"
tokens=$(grep -o '"label":"tokens","value":[0-9]*,' "$T/s.json" | grep -o '[0-9]*,$' | tr -d ',')
expect_eq "summary tokens = tok count" "$("$TOK" count -q -e cl100k_base "$T/mixed.txt")" "$tokens"
chars=$(printf 'e\xcc\x81 \xf0\x9f\x87\xab\xf0\x9f\x87\xb7' | "$TOK" show --json | grep -o '"label":"characters","value":[0-9]*,"text":"[0-9]*"')
expect_eq "graphemes" '"label":"characters","value":3,"text":"3"' "$chars"
# Summary values are JSON numbers (the text as printed beside them), with -m too.
yes 'the cat sat' | head -2000 | "$TOK" show --json -m gpt-oss-20b >"$T/n.json" 2>/dev/null || fail "show -m json"
node -e 'const j=JSON.parse(require("fs").readFileSync(process.argv[1]));
  for (const s of j.summary) for (const r of s.rows) {
    if (r.value!==null && typeof r.value!=="number") throw r.label+": "+JSON.stringify(r.value);
    if (typeof r.text!=="string") throw r.label+" has no text";
  }
  const row=(t,l)=>j.summary.find(s=>s.title===t).rows.find(r=>r.label===l);
  if (row("Text","words").value!==6000 || row("Text","words").text!=="6,000") throw "words";
  if (!(row("Model gpt-oss-20b","KV cache f16").value>1e6)) throw "kv";
  if (!(row("Model gpt-oss-20b","context window").value<1)) throw "window share";' "$T/n.json" ||
  fail "summary numbers: $(head -c 1500 "$T/n.json")"

# -m: the model figures are those of tok count -m MODEL --kv (same numbers
# in the JSON of both), for a model with a KV shape and one without, with
# the model's tokenizer, also when -e draws another vocabulary (the model's
# figures still count with its own tokenizer).
field() { grep -o "\"$1\":[0-9.e+-]*" "$2" | tail -1; }
for args in "-m gpt-oss-20b" "-m gpt-oss-120b -e cl100k_base" "-m gpt-4o"; do
  "$TOK" show --json $args "$T/mixed.txt" >"$T/m.json" || fail "show $args failed"
  # (file first: count's -m is a repeatable option that would take the file as a model)
  "$TOK" count --json --kv "$T/mixed.txt" ${args%% -e*} >"$T/c.json" 2>/dev/null || fail "count $args failed"
  for f in tokens input_cost window_share paged_tokens bytes_f16 bytes_q8_0 attention_flops; do
    expect_eq "$args: $f" "$(field $f "$T/c.json")" "$(field $f "$T/m.json")"
  done
  [ -n "$(field input_cost "$T/m.json")" ] || fail "$args: no input_cost in show --json"
  [[ "$args" != *gpt-oss* ]] || [ -n "$(field bytes_f16 "$T/m.json")" ] || fail "$args: no KV figures"
done
grep -q '"bytes_f16"' "$T/m.json" && fail "gpt-4o has no public KV shape"
"$TOK" show --color never -m gpt-oss-20b "$T/mixed.txt" >"$T/m.out"
for row in "input cost" "context window" "KV cache f16" "KV cache q8_0" "attention FLOPs"; do
  grep -q "^  $row " "$T/m.out" || fail "no '$row' in the summary: $(cat "$T/m.out")"
done
grep -q "Attention FLOPs grow fastest" "$T/m.out" || fail "no growth sentence"
expect_error 1 "unknown model" "$TOK" show -m no-such-model -t hi

# Large inputs: drawn up to --limit, summary over everything.
head -c 20000 /dev/zero | tr '\0' 'a' | sed 's/aaaaaaaaaa/hello you /g' >"$T/big.txt"
"$TOK" show --color never --limit 100 "$T/big.txt" >"$T/big.out"
grep -q "more bytes .* not shown" "$T/big.out" || fail "no left-out note: $(head -3 "$T/big.out")"
total=$("$TOK" count -q "$T/big.txt")
shown=$(grep -E '^  tokens ' "$T/big.out" | tr -d ',' | awk '{print $2}')
expect_eq "summary covers the whole input" "$total" "$shown"

# HTML: one span per token, text and attributes escaped, written atomically.
printf '<script>alert("x")</script> & '"'"'q'"'"' <b>' >"$T/evil.txt"
expect_status 0 "$TOK" show --html "$T/page.html" "$T/evil.txt"
n=$(grep -o 'class="tok ' "$T/page.html" | wc -l)
expect_eq "page token spans" "$("$TOK" count -q "$T/evil.txt")" "$n"
grep -q '<script>alert' "$T/page.html" && fail "page lets the input inject a script"
grep -q '<b>' "$T/page.html" && fail "page lets the input inject markup"
grep -q '&lt;script' "$T/page.html" || fail "< not escaped"
grep -q '&gt;alert' "$T/page.html" || fail "> not escaped"
grep -q '(&quot;' "$T/page.html" || fail "double quotes not escaped"
grep -q '&#39;' "$T/page.html" || fail "single quotes not escaped"
grep -q '&amp;' "$T/page.html" || fail "& not escaped"
grep -c '<script>' "$T/page.html" | grep -qx 1 || fail "page should hold exactly one (inline) script"
grep -qiE '(src|href)="?(https?:)?//' "$T/page.html" && fail "page refers to the network"
"$TOK" show --html "$T/two.html" -e o200k_base -e cl100k_base "$T/mixed.txt"
n=$(grep -o 'class="tok ' "$T/two.html" | wc -l)
expect_eq "side-by-side spans" $(( $("$TOK" count -q "$T/mixed.txt") + $("$TOK" count -q -e cl100k_base "$T/mixed.txt") )) "$n"
grep -q 'class="cols"' "$T/two.html" || fail "no side-by-side view"
ls "$T" | grep -q 'tmp' && fail "temporary file left behind"

# Errors: one line, right status.
expect_error 2 'at most two' "$TOK" show -e o200k_base -e cl100k_base -e r50k_base -t hi
expect_error 1 'nope' "$TOK" show -e nope -t hi
expect_error 2 'json' "$TOK" show --json --html "$T/x.html" -t hi
expect_error 1 'x.html|directory' "$TOK" show --html /nonexistent/dir/x.html -t hi
echo "show: ok"
