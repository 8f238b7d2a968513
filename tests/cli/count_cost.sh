#!/usr/bin/env bash
# tok count with models: tables, JSON/CSV schemas, chat, batch, budgets, errors.
source "$(dirname "$0")/lib.sh"
D="$TOK_TEST_DATA/cost"
printf 'Hello, world! This is a test.\n' >"$T/a.txt"

# The legacy contract (no -m) is unchanged.
expect_eq "legacy json" '{"encoding":"o200k_base","files":[{"path":"'"$T"'/a.txt","bytes":30,"tokens":9}],"total":{"bytes":30,"tokens":9}}' \
  "$("$TOK" count --json "$T/a.txt")"
expect_eq "legacy -q" 9 "$("$TOK" count -q "$T/a.txt")"
expect_eq "stdin" 9 "$("$TOK" count -q <"$T/a.txt")"

# One model: -q prints one number; the table names tokens, costs and window.
expect_eq "-m gpt-4o -q" 9 "$("$TOK" count -m gpt-4o -q "$T/a.txt")"
expect_eq "-m gpt-4 -q" 9 "$("$TOK" count -m gpt-4 -q "$T/a.txt")"
"$TOK" count -m gpt-4o -m gpt-4 "$T/a.txt" "$TOK_ROOT/scripts/update-prices" >"$T/table" 2>"$T/err" || fail "table: $(cat "$T/err")"
grep -q 'gpt-4o' "$T/table" || fail "table lacks gpt-4o: $(cat "$T/table")"
grep -qE '^ +[0-9]+ +[0-9]+ +[0-9]+  total$' "$T/table" || fail "table lacks a total row: $(cat "$T/table")"
grep -q 'genai-prices' "$T/table" || fail "table lacks the price source"

# JSON with several models: one entry per model.
j=$("$TOK" count -m gpt-4o -m gpt-4 --output-tokens 1000 --json "$T/a.txt")
n=$(node -e 'const j=JSON.parse(process.argv[1]); const m=j.models;
  if (m.length!==2||m[0].model!=="gpt-4o"||m[1].model!=="gpt-4") throw "models";
  const t=m[0].total; if (t.tokens!==9||t.output_tokens!==1000) throw "total";
  const want=(9*2.5+1000*10)/1e6; if (Math.abs(t.total_cost-want)>1e-12) throw "cost "+t.total_cost;
  if (Math.abs(t.window_share-1009/128000)>1e-12) throw "share";
  if (!m[0].price.date||!m[0].price.source) throw "price";
  console.log(m[1].files[0].tokens)' "$j") || fail "json schema: $j"
expect_eq "gpt-4 file tokens" 9 "$n"

# Cached tokens use the cached price.
j=$("$TOK" count -m gpt-4o --cached-tokens 5 --json "$T/a.txt")
node -e 'const t=JSON.parse(process.argv[1]).models[0].total; const want=(4*2.5+5*1.25)/1e6;
  if (Math.abs(t.input_cost-want)>1e-12) throw t.input_cost' "$j" || fail "cached: $j"

# CSV: header and one line per input and model, then totals.
"$TOK" count -m gpt-4o -m gpt-4 --csv "$T/a.txt" >"$T/csv"
expect_eq "csv header" "path,bytes,model,encoding,tokens,input_cost,output_cost,total_cost,window_share,estimate,tier,fits" "$(head -1 "$T/csv")"
expect_eq "csv lines" 5 "$(wc -l <"$T/csv")"
grep -q '^total,30,gpt-4,cl100k_base,9,' "$T/csv" || fail "csv total: $(cat "$T/csv")"

# Chat: the OpenAI cookbook example (129 for gpt-4, 124 for gpt-4o, 127 for 0301).
expect_eq "chat gpt-4" 129 "$("$TOK" count -m gpt-4 --chat "$D/cookbook_messages.json" -q)"
expect_eq "chat gpt-4o" 124 "$("$TOK" count -m gpt-4o --chat "$D/cookbook_messages.json" -q)"
expect_eq "chat 0301" 127 "$("$TOK" count -m gpt-3.5-turbo-0301 --chat "$D/cookbook_messages.json" -q)"
printf '[\n {"role": "user", "content": }\n]\n' >"$T/bad.json"
expect_error 1 "bad.json:2:[0-9]+: malformed JSON" "$TOK" count -m gpt-4o --chat "$T/bad.json"

# Batch: per-line counts and a total; max_tokens bound the output.
"$TOK" count -m gpt-4o --batch "$D/batch.jsonl" --json >"$T/batch.json" || fail "batch"
node -e 'const m=JSON.parse(require("fs").readFileSync(process.argv[1])).models[0];
  if (m.files.length!==2) throw "lines"; if (m.total.tokens!==m.files[0].tokens+m.files[1].tokens) throw "sum";
  if (m.total.output_tokens!==150) throw "max_tokens "+m.total.output_tokens;
  if (!m.files[0].path.endsWith(":1 request-1")) throw m.files[0].path' "$T/batch.json" || fail "batch json: $(cat "$T/batch.json")"

# Window warnings and the budget gate.
head -c 60000 /dev/zero | tr '\0' 'x' | sed 's/x\{10\}/hello world /g' >"$T/big.txt"
"$TOK" count -m gpt-4 "$T/big.txt" >/dev/null 2>"$T/err"
grep -q "do not fit the gpt-4 context window of 8192 tokens" "$T/err" || fail "no window warning: $(cat "$T/err")"
expect_status 3 "$TOK" count --budget 5 "$T/a.txt"
[ "$(wc -l <"$T/err")" == 1 ] && grep -q "over budget: .*a.txt has 9 tokens .*more than --budget 5" "$T/err" || fail "budget message: $(cat "$T/err")"
expect_status 0 "$TOK" count --budget 9 "$T/a.txt"
expect_status 0 "$TOK" count --budget 9 "$T/a.txt" "$T/a.txt"
expect_status 3 "$TOK" count --budget 9 --total "$T/a.txt" "$T/a.txt"
# --max-tokens: the old name of --budget, kept as an alias for one release.
expect_status 3 "$TOK" count --max-tokens 5 "$T/a.txt"
expect_status 0 "$TOK" count --max-tokens 9 "$T/a.txt"

# Estimates say so.
"$TOK" count -m claude-sonnet-4-5 "$T/a.txt" >"$T/out" 2>"$T/err"
grep -q "ESTIMATE" "$T/err" || fail "no estimate warning: $(cat "$T/err")"
grep -q "ESTIMATE" "$T/out" || fail "no estimate mark in the table: $(cat "$T/out")"

# Unknown models suggest; unreadable files are reported and skipped.
expect_error 1 "unknown model 'gpt4o'; did you mean gpt-4o" "$TOK" count -m gpt4o "$T/a.txt"
cp "$T/a.txt" "$T/b.txt"
expect_status 1 "$TOK" count -q "$T/a.txt" "$T/missing.txt" "$T/b.txt"
expect_eq "others still counted" 18 "$(cat "$T/out")"
grep -q "missing.txt" "$T/err" || fail "missing not reported"
expect_eq "one error line" 1 "$(wc -l <"$T/err")"

# --kv ties tokens to KV memory and price.
"$TOK" count -m gpt-oss-20b --kv "$T/a.txt" >"$T/out" || fail "kv"
grep -q "^kv gpt-oss-20b: 9 tokens -> KV cache .* f16" "$T/out" || fail "kv line: $(cat "$T/out")"

# User catalogs.
printf '{"models":[{"id":"tiny","tokenizer":"cl100k_base","context_window":4,"price":{"input":1000000,"output":0,"date":"2030-01-01","source":"test"}}]}' >"$T/m.json"
j=$("$TOK" count --models "$T/m.json" -m tiny --json "$T/a.txt" 2>"$T/err")
node -e 'const t=JSON.parse(process.argv[1]).models[0].total; if (t.input_cost!==9||t.fits!==false) throw JSON.stringify(t)' "$j" || fail "user catalog: $j"
mkdir -p "$T/cfg/tok" && cp "$T/m.json" "$T/cfg/tok/models.json"
expect_eq "config dir catalog" 9 "$(XDG_CONFIG_HOME=$T/cfg "$TOK" count -m tiny -q "$T/a.txt" 2>/dev/null)"
"$TOK" models >"$T/models" || fail "models"
grep -q "^gpt-4o " "$T/models" || fail "models table"
"$TOK" models --json | node -e 'const j=JSON.parse(require("fs").readFileSync(0)); if (!j.find(m=>m.id==="llama-3.1-8b").kv) throw "kv"' || fail "models json"
echo ok
