#!/usr/bin/env bash
# tok count bills like the provider: long-context tiers per request, Batch API
# rates for batch files, -e beside -m as its own column, the --kv cost line
# naming what it sums, one money format; tok models --search.
source "$(dirname "$0")/lib.sh"
D="$TOK_TEST_DATA/cost"
printf 'Hello, world! This is a test.\n' >"$T/a.txt"
js() { node -e "const j=JSON.parse(require('fs').readFileSync(0)); $1"; }

# Gemini 2.5 Pro: over 200k input tokens the whole request is billed at
# $2.50/M input and $15/M output (base $1.25 and $10).
yes 'hello world' | head -c 1500000 >"$T/big.txt"
n=$("$TOK" count -q "$T/big.txt")
[ "$n" -gt 200000 ] || fail "big.txt has only $n tokens"
# --total: both files as one request, over 200k.
"$TOK" count -m gemini-2.5-pro --output-tokens 1000 --total --json "$T/big.txt" "$T/a.txt" 2>/dev/null >"$T/pro.json" || fail "pro json"
js 'const m=j.models[0], t=m.total; const want=(t.tokens*2.5+1000*15)/1e6;
  if (Math.abs(t.total_cost-want)>1e-9) throw "total "+t.total_cost+" want "+want;
  if (t.rates.tier_above!==200000 || t.rates.input_per_mtok!==2.5 || t.rates.label!=="over 200k") throw JSON.stringify(t.rates);
  if (m.files[1].tier!=="standard" || Math.abs(m.files[1].input_cost-9*1.25/1e6)>1e-12) throw JSON.stringify(m.files[1]);
  if (m.price.tiers[0].above!==200000) throw JSON.stringify(m.price)' <"$T/pro.json" || fail "tier json: $(head -c 600 "$T/pro.json")"
# Without --total each file is its own request: big.txt over 200k, a.txt not.
"$TOK" count -m gemini-2.5-pro --output-tokens 1000 --json "$T/big.txt" "$T/a.txt" 2>/dev/null |
  js 'const m=j.models[0], t=m.total, f=m.files;
    const want=(f[0].tokens*2.5+1000*15+f[1].tokens*1.25+1000*10)/1e6;
    if (Math.abs(t.total_cost-want)>1e-9) throw "total "+t.total_cost+" want "+want;
    if (t.rates.label!=="mixed: 1 of 2 requests over 200k" || t.one_request) throw JSON.stringify(t.rates)' ||
  fail "per-file tiers"
"$TOK" count -m gemini-2.5-pro "$T/big.txt" 2>/dev/null >"$T/pro.txt" || fail "pro table"
grep -qE '^gemini-2.5-pro .*\$2\.50/\$15\.00 over 200k' "$T/pro.txt" || fail "tier not shown in the table: $(cat "$T/pro.txt")"
"$TOK" count -m gemini-2.5-pro --csv "$T/a.txt" 2>/dev/null >"$T/pro.csv"
grep -q ',standard,true$' "$T/pro.csv" || fail "tier not in the csv: $(cat "$T/pro.csv")"

# A batch file: each request at its own tier, all at batch rates (gpt-4o-mini:
# half of $0.15/M in, $0.60/M out); --no-batch-rates restores them.
"$TOK" count -m gpt-4o-mini --batch "$D/batch.jsonl" --json >"$T/b.json" || fail "batch"
js 'const t=j.models[0].total; const want=(t.tokens*0.075+150*0.3)/1e6;
  if (Math.abs(t.total_cost-want)>1e-12) throw "cost "+t.total_cost+" want "+want;
  if (!t.rates.batch || t.rates.label!=="batch" || t.rates.requests!==2) throw JSON.stringify(t.rates);
  if (j.models[0].files[0].output_tokens!==100) throw "per-request output"' <"$T/b.json" || fail "batch rates: $(cat "$T/b.json")"
"$TOK" count -m gpt-4o-mini --batch "$D/batch.jsonl" --no-batch-rates --json |
  js 'const t=j.models[0].total; if (t.rates.batch || t.rates.input_per_mtok!==0.15) throw JSON.stringify(t.rates)' ||
  fail "--no-batch-rates"
"$TOK" count -m gpt-4o-mini --batch "$D/batch.jsonl" >"$T/b.txt" || fail "batch table"
grep -qE '^gpt-4o-mini .*\$0\.075/\$0\.30 batch' "$T/b.txt" || fail "batch not marked: $(cat "$T/b.txt")"
"$TOK" count -m gpt-4o-mini --batch-rates --json "$T/a.txt" |
  js 'if (!j.models[0].total.rates.batch) throw "not batch"' || fail "--batch-rates on a file"
expect_error 2 "choose one of --batch-rates and --no-batch-rates" "$TOK" count -m gpt-4o --batch-rates --no-batch-rates "$T/a.txt"
expect_error 2 "need -m MODEL" "$TOK" count --batch-rates "$T/a.txt"

# Requests of one batch in different tiers: each billed at its own.
printf '{"models":[{"id":"t","tokenizer":"o200k_base","context_window":1000,"price":{"input":1,"output":2,"tiers":[{"above":10,"input":3,"output":4}],"batch":{"factor":0.5,"source":"test"},"date":"2030-01-01","source":"test"}}]}' >"$T/t.json"
{ printf '{"custom_id":"short","body":{"messages":[{"role":"user","content":"hi"}]}}\n'
  printf '{"custom_id":"long","body":{"messages":[{"role":"user","content":"%s"}]}}\n' "$(yes word | head -40 | tr '\n' ' ')"
} >"$T/mixed.jsonl"
"$TOK" count --models "$T/t.json" -m t --batch "$T/mixed.jsonl" --no-batch-rates --json >"$T/mixed.json" || fail "mixed"
js 'const m=j.models[0], f=m.files; const want=(f[0].tokens*1+f[1].tokens*3)/1e6;
  if (Math.abs(m.total.input_cost-want)>1e-15) throw "input "+m.total.input_cost+" want "+want;
  if (m.total.rates.label!=="mixed: 1 of 2 requests over 10") throw m.total.rates.label' <"$T/mixed.json" ||
  fail "mixed tiers: $(cat "$T/mixed.json")"
expect_error 1 "tiers must be in ascending order" "$TOK" count --models <(printf '{"models":[{"id":"u","tokenizer":"o200k_base","price":{"tiers":[{"above":9},{"above":9}]}}]}') -m u "$T/a.txt"

# -e beside -m: the model keeps its own tokenizer, -e gets a column of its own.
printf 'The quick brown fox.' >"$T/fox.txt"
"$TOK" count -m gpt-4o -e cl100k_base --json "$T/fox.txt" >"$T/e.json" || fail "-e with -m"
js 'if (j.models[0].encoding!=="o200k_base") throw "model encoding "+j.models[0].encoding;
  if (j.models[0].total.tokens!==5) throw "gpt-4o "+j.models[0].total.tokens;
  if (j.encodings[0].encoding!=="cl100k_base") throw "no -e column"' <"$T/e.json" || fail "-e json: $(cat "$T/e.json")"
"$TOK" count -m gpt-4o -e r50k_base "$T/fox.txt" >"$T/e.txt" || fail "-e table"
head -1 "$T/e.txt" | grep -qE 'gpt-4o +r50k_base' || fail "-e column missing: $(cat "$T/e.txt")"
expect_eq "-e column is not billed" 1 "$(grep -c 'genai-prices' "$T/e.txt")"

# --kv: the cost names what it sums.
"$TOK" count -m gpt-oss-20b --kv --output-tokens 100 "$T/a.txt" >"$T/kv.txt" || fail "kv"
grep -qE '^kv gpt-oss-20b: .* -> cost \$[0-9.]+ = \$[0-9.]+ input at \$[0-9.]+/M \+ \$[0-9.]+ output at \$[0-9.]+/M$' "$T/kv.txt" ||
  fail "kv cost label: $(cat "$T/kv.txt")"

# One money format: never an exponent, never a zero for a non-zero cost.
"$TOK" count -m gpt-4o-mini "$T/a.txt" >"$T/money.txt" || fail "money"
grep -q 'e-0' "$T/money.txt" && fail "exponent in a cost: $(cat "$T/money.txt")"
grep -q '\$0\.000000' "$T/money.txt" && fail "zero shown for a cost: $(cat "$T/money.txt")"
grep -qE '^gpt-4o-mini +9 +\$0\.00000135 ' "$T/money.txt" || fail "cost digits: $(cat "$T/money.txt")"

# The catalog: every priced model, names as providers spell them, search.
for m in claude-3-5-sonnet claude-3.5-sonnet claude-3-5-sonnet-20241022 anthropic/claude-3-5-sonnet gemini-2.0-flash; do
  expect_status 0 "$TOK" count -m "$m" "$T/a.txt"
done
"$TOK" count -m claude-3-5-sonnet-20241022 --json "$T/a.txt" 2>/dev/null |
  js 'if (j.models[0].model!=="claude-3-5-sonnet" || !j.models[0].estimate) throw JSON.stringify(j.models[0])' ||
  fail "dated name resolves to its model"
expect_error 1 "did you mean .*claude-3-5-sonnet" "$TOK" count -m claude-3-5-sonet "$T/a.txt"
n=$("$TOK" models --json | js 'console.log(j.length)')
[ "$n" -ge 500 ] || fail "catalog has only $n models"
"$TOK" models -s claude -s sonnet >"$T/s.txt" || fail "search"
grep -q '^claude-3-5-sonnet ' "$T/s.txt" || fail "search lacks claude-3-5-sonnet: $(cat "$T/s.txt")"
grep -qE '^gpt-4o ' "$T/s.txt" && fail "search shows gpt-4o"
"$TOK" models --search gemini-2.5-pro >"$T/s.txt"
grep -qE '^gemini-2.5-pro .*\$1\.25 >200k \$2\.50' "$T/s.txt" || fail "tiers in tok models: $(cat "$T/s.txt")"
expect_error 1 "no model in the catalog matches 'zzqqxx'" "$TOK" models -s zzqqxx
echo ok
