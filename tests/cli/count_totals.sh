#!/usr/bin/env bash
# tok count over many inputs: the total is billed input by input (each one
# request at its own tier) unless --total; an input over a model's window is
# marked in the table, CSV and JSON; --budget names every input over it and
# loses to an input error; -e repeats, a column per encoding.
source "$(dirname "$0")/lib.sh"
js() { node -e "const j=JSON.parse(require('fs').readFileSync(0)); $1"; }
printf 'Hello, world! This is a test.\n' >"$T/a.txt"   # 9 tokens (o200k_base)
# A model with a 10-token tier and a 20-token window.
printf '{"models":[{"id":"t","tokenizer":"o200k_base","context_window":20,"price":{"input":1,"output":2,"tiers":[{"above":10,"input":3,"output":4}],"date":"2030-01-01","source":"test"}}]}' >"$T/t.json"
yes 'hello world' | head -15 | tr -d '\n' >"$T/long.txt"
n=$("$TOK" count -q "$T/long.txt")
[ "$n" -gt 20 ] || fail "long.txt has only $n tokens"
M=(--models "$T/t.json" -m t)

# Two 9-token files: each under the tier, so the total is billed at the base
# rate, although 18 > 10; with --total at the tier rate, as one request.
"$TOK" count "${M[@]}" --json "$T/a.txt" "$T/a.txt" >"$T/j" || fail "two files"
js 't=j.models[0].total; if (Math.abs(t.input_cost-18e-6)>1e-15 || t.rates.label!=="standard" || t.rates.requests!==2 || t.one_request!==false || !t.fits) throw JSON.stringify(t)' <"$T/j" ||
  fail "per-input total: $(cat "$T/j")"
"$TOK" count "${M[@]}" --json --total "$T/a.txt" "$T/a.txt" >"$T/j" || fail "--total"
js 't=j.models[0].total; if (Math.abs(t.input_cost-54e-6)>1e-15 || t.rates.label!=="over 10" || t.one_request!==true) throw JSON.stringify(t)' <"$T/j" ||
  fail "--total as one request: $(cat "$T/j")"
"$TOK" count "${M[@]}" "$T/a.txt" "$T/a.txt" >"$T/out" 2>"$T/err" || fail "table"
grep -q '^total: each input priced as one request at its own tier, summed (--total: as one request)$' "$T/out" ||
  fail "table does not say how the total is priced: $(cat "$T/out")"
grep -q 'total of .* does not fit' "$T/err" && fail "the total warned as one request: $(cat "$T/err")"
"$TOK" count "${M[@]}" --total "$T/a.txt" "$T/a.txt" >"$T/out" 2>"$T/err"
grep -q '^total: priced as one request holding every input (--total)$' "$T/out" || fail "--total not said: $(cat "$T/out")"
grep -q 'the total of 18 tokens does not fit' "$T/err" && fail "18 tokens fit 20: $(cat "$T/err")"

# An input over the window: marked in the table (row and model line), CSV
# (fits column) and JSON; the others still billed on their own.
"$TOK" count "${M[@]}" "$T/a.txt" "$T/long.txt" >"$T/out" 2>/dev/null || fail "long table"
grep -qE "^ +!$n +[0-9]+  .*long.txt$" "$T/out" || fail "row not marked: $(cat "$T/out")"
grep -q "^! t: 1 of 2 inputs does not fit its context window of 20 tokens$" "$T/out" || fail "no note: $(cat "$T/out")"
grep -qE '^t .* ![0-9]+\.[0-9]%' "$T/out" || fail "model line not marked: $(cat "$T/out")"
"$TOK" count "${M[@]}" --csv "$T/a.txt" "$T/long.txt" >"$T/csv" 2>/dev/null
expect_eq "csv header" "path,bytes,model,encoding,tokens,input_cost,output_cost,total_cost,window_share,estimate,tier,fits" "$(head -1 "$T/csv")"
grep -q "a.txt,.*,standard,true$" "$T/csv" || fail "csv fits: $(cat "$T/csv")"
grep -q "long.txt,.*,over 10,false$" "$T/csv" || fail "csv does not fit: $(cat "$T/csv")"
grep -q '^total,.*,mixed: 1 of 2 requests over 10,false$' "$T/csv" || fail "csv total: $(cat "$T/csv")"
"$TOK" count "${M[@]}" --json "$T/a.txt" "$T/long.txt" 2>/dev/null |
  js 'const m=j.models[0]; if (m.files[1].fits!==false || m.files[0].fits!==true || m.total.inputs_over_window!==1 || m.total.fits!==false) throw JSON.stringify(m)' ||
  fail "json fits"

# --output-tokens: per input (each input is a request).
"$TOK" count "${M[@]}" --json --output-tokens 2 "$T/a.txt" "$T/a.txt" |
  js 't=j.models[0].total; if (t.output_tokens!==4 || Math.abs(t.total_cost-(18+8)/1e6)>1e-15) throw JSON.stringify(t)' ||
  fail "output tokens per input"

# --budget on a tree: every input over it, in one line.
for i in 1 2 3 4 5 6 7; do cp "$T/a.txt" "$T/b$i.txt"; done
expect_status 3 "$TOK" count --budget 5 "$T"/b?.txt
expect_eq "one line" 1 "$(wc -l <"$T/err")"
grep -q "^tok: error: over budget: 7 of 7 inputs have more than --budget 5 tokens: .*b1.txt has 9 tokens (o200k_base); .*b5.txt has 9 tokens (o200k_base); and 2 more$" "$T/err" ||
  fail "budget names the inputs over: $(cat "$T/err")"
expect_status 3 "$TOK" count --budget 5 "$T/a.txt"
grep -q "^tok: error: over budget: .*a.txt has 9 tokens (o200k_base), more than --budget 5$" "$T/err" || fail "one over: $(cat "$T/err")"
# A missing input is exit 1 even when another is over budget.
expect_status 1 "$TOK" count --budget 5 "$T/a.txt" "$T/missing.txt"
grep -q "missing.txt" "$T/err" || fail "missing file not reported: $(cat "$T/err")"

# -e repeated: a column per encoding, in table, JSON and CSV.
"$TOK" count -e cl100k_base -e r50k_base "$T/a.txt" >"$T/out" || fail "-e -e"
expect_eq "two -e header" "cl100k_base r50k_base bytes path" "$(head -1 "$T/out" | tr -s ' ' | sed 's/^ //')"
"$TOK" count -e cl100k_base -e r50k_base --json "$T/a.txt" |
  js 'if (j.encodings.length!==2 || j.encodings[1].encoding!=="r50k_base" || j.encodings[0].total.tokens!==9 || j.models.length!==0) throw JSON.stringify(j)' ||
  fail "-e -e json"
expect_eq "-e -e csv lines" 5 "$("$TOK" count -e cl100k_base -e r50k_base --csv "$T/a.txt" | wc -l)"
"$TOK" count -m gpt-4o -e cl100k_base -e gpt2 --json "$T/a.txt" |
  js 'if (j.models.length!==1 || j.encodings.length!==2) throw JSON.stringify(j)' || fail "-m with two -e"
expect_error 2 "-q prints one number" "$TOK" count -q -e cl100k_base -e gpt2 "$T/a.txt"
echo ok
