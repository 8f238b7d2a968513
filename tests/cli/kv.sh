# The paged KV cache in tok generate / tok score: --kv-block, --kv-type,
# --kv-policy, --kv-budget; the kv_* statistics keys (docs/kv.md, "Stats").
source "$(dirname "$0")/lib.sh"
M="$TOK_ROOT/vocab/tok-tiny-bible.gguf"
[ -f "$M" ] || fail "default model $M is missing"

# --stats: every kv_* key, consistent with each other.
"$TOK" generate --stats --greedy -n 20 --kv-block 8 "In the beginning" >/dev/null 2>"$T/st" || fail "--stats: $(cat "$T/st")"
python3 - "$T/st" <<'PY' || fail "kv stats: $(cat "$T/st")"
import json, sys
j = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
keys = ["kv_block_tokens", "kv_blocks_in_use", "kv_blocks_peak", "kv_bytes_per_token", "kv_bytes_reserved",
        "kv_bytes_used", "kv_waste_pct", "kv_bytes_contiguous", "kv_shared_blocks", "kv_bytes_saved",
        "kv_budget_bytes", "kv_type", "kv_policy", "kv_evicted_tokens", "kv_bytes"]
for k in keys: assert k in j, k
bt, bpt = j["kv_block_tokens"], j["kv_bytes_per_token"]
assert bt == 8 and j["kv_type"] == "f32" and j["kv_policy"] == "full", j
assert bpt % (2 * 32 * 4) == 0, bpt          # 2 * layers * row floats, rows of 32k floats
assert j["kv_bytes"] == j["kv_bytes_reserved"] == j["kv_blocks_in_use"] * bt * bpt
evaluated = j["prompt_tokens"] + j["generated_tokens"] - 1   # the last token is never evaluated
assert j["kv_bytes_used"] == evaluated * bpt, j
assert j["kv_blocks_peak"] == j["kv_blocks_in_use"] == -(-evaluated // bt), j
r, u = j["kv_bytes_reserved"], j["kv_bytes_used"]
assert abs(j["kv_waste_pct"] - 100 * (r - u) / r) < 0.01, j
assert j["kv_bytes_contiguous"] == 256 * bpt, j   # the model's context
assert j["kv_shared_blocks"] == 0 and j["kv_bytes_saved"] == 0 and j["kv_evicted_tokens"] == 0
assert j["kv_budget_bytes"] == 0
PY
# --json carries the same keys; quantized storage shrinks bytes per token.
"$TOK" generate --json --greedy -n 4 --kv-type q8_0 "In the beginning" >"$T/j" || fail "--kv-type q8_0"
python3 -c '
import json,sys; s=json.load(open(sys.argv[1]))["stats"]; f32=json.loads(open(sys.argv[2]).read().strip().splitlines()[-1])
assert s["kv_type"]=="q8_0" and s["kv_bytes_per_token"]*128==f32["kv_bytes_per_token"]*34, s' "$T/j" "$T/st" \
  || fail "json kv: $(cat "$T/j")"

# f32 paged storage is exact: every block size gives the same greedy text.
a=$("$TOK" generate --greedy -n 40 "The LORD is my shepherd")
for b in 1 7 64; do
  expect_eq "greedy with --kv-block $b" "$a" "$("$TOK" generate --greedy -n 40 --kv-block $b "The LORD is my shepherd")"
done

# A bounded policy generates past the context; full stops at it.
for p in "window:48" "sinks:4,window:44" "h2o:8,window:40"; do
  "$TOK" generate --stats --seed 3 --ctx 64 -n 200 --kv-policy "$p" "In the beginning" >"$T/o" 2>"$T/e" \
    || fail "--kv-policy $p: $(cat "$T/e")"
  grep -q "context full" "$T/e" && fail "--kv-policy $p stopped at the context"
  python3 -c '
import json,sys; j=json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
assert j["generated_tokens"]==200 and j["stop"]=="max_tokens", j
assert j["kv_policy"]==sys.argv[2], j
assert j["kv_evicted_tokens"]==j["prompt_tokens"]+199-49, j
assert j["kv_blocks_peak"]<=4, j' "$T/e" "$p" || fail "policy $p stats: $(cat "$T/e")"
done
expect_status 0 "$TOK" generate --seed 3 --ctx 64 -n 200 "In the beginning"
grep -q "context full" "$T/err" || fail "full policy did not stop at the context"

# Bad values are usage errors (exit 2, one line); impossible combinations exit 1.
for cmd in generate score; do
  expect_error 2 "kv-type|KV type|q3" "$TOK" $cmd --kv-type q3 "x"
  expect_error 2 "window must be a positive integer" "$TOK" $cmd --kv-policy window:0 "x"
  expect_error 2 "expected full, window:W" "$TOK" $cmd --kv-policy lru "x"
  expect_error 2 "kv-block" "$TOK" $cmd --kv-block 0 "x"
  expect_error 2 "MB|ambiguous" "$TOK" $cmd --kv-budget 10MB "x"
  expect_error 1 "smaller than one block" "$TOK" $cmd --kv-budget 1KiB "x"
  expect_error 1 "window:300 keeps 300 tokens" "$TOK" $cmd --kv-policy window:300 "x"
done
# A budget too small for the text: a clean error, status 1.
expect_error 1 "no free block" "$TOK" generate --kv-budget 64KiB -n 100 "In the beginning"
# ... and enough for a window of the same text.
expect_status 0 "$TOK" generate --kv-budget 64KiB --kv-policy window:30 -n 100 "In the beginning"

# score: default output unchanged; one stream with a policy; storage types against f32.
head -c 3000 "$TOK_ROOT/tests/data/model/sample.txt" >"$T/s.txt"
"$TOK" score "$T/s.txt" >"$T/h" || fail "score"
grep -Eq '^tokens [0-9]+  windows [0-9]+ \(context 256\)  mean NLL [0-9.]+ nats  perplexity [0-9.]+  [0-9]+ tokens/s$' "$T/h" \
  || fail "score output changed: $(cat "$T/h")"
"$TOK" score --json --ctx 64 "$T/s.txt" >"$T/w" || fail "score windows"
"$TOK" score --json --ctx 64 --kv-policy sinks:4,window:44 "$T/s.txt" >"$T/p" || fail "score stream"
"$TOK" score --json --ctx 64 --kv-type q4_0 "$T/s.txt" >"$T/q" || fail "score q4_0"
python3 - "$T/w" "$T/p" "$T/q" <<'PY' || fail "score: $(cat "$T/w" "$T/p" "$T/q")"
import json, sys
w, p, q = (json.load(open(f)) for f in sys.argv[1:])
assert w["mode"] == "windows" and w["windows"] >= 5 and "f32_perplexity" not in w, w
assert p["mode"] == "stream" and p["windows"] == 1 and p["kv_policy"] == "sinks:4,window:44", p
assert p["tokens"] == w["tokens"], (p, w)
assert p["kv_evicted_tokens"] == p["tokens"] + 1 - 49, p   # BOS + text, 49 kept at the end
assert 1 < p["perplexity"] < 1000
# q4_0 against f32 with the same windows: the f32 run is tok score's own.
assert q["kv_type"] == "q4_0" and abs(q["f32_perplexity"] - w["perplexity"]) < 1e-6 * w["perplexity"], q
assert abs(q["perplexity_delta"]) < 0.1 * w["perplexity"], q
assert abs(q["perplexity_delta"] - (q["perplexity"] - q["f32_perplexity"])) < 1e-9, q
PY
"$TOK" score --kv-type q8_0 "$T/s.txt" >"$T/h8" || fail "score q8_0"
grep -Eq 'perplexity [0-9.]+  [0-9]+ tokens/s  \(q8_0: [+-][0-9.]+ vs f32 perplexity [0-9.]+\)$' "$T/h8" || fail "q8_0 line: $(cat "$T/h8")"
exit 0
