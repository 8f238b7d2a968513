# tok generate --batch / --samples / --beams: many sequences on the paged KV
# cache give exactly what single runs give.
source "$(dirname "$0")/lib.sh"

# --batch: every line equals `tok generate` alone with the same settings.
cat >"$T/p.jsonl" <<'EOF'
{"prompt": "In the beginning", "seed": 1, "max_tokens": 12}
{"prompt": "And Jesus said unto them", "seed": 2, "temperature": 1.2, "top_k": 10}

{"prompt": "The LORD is my shepherd", "temperature": 0, "max_tokens": 9}
{"prompt": "Blessed are the", "seed": 4, "top_p": 0.5, "stop": [",", ";"], "max_tokens": 40}
{"prompt": "Now the serpent was", "seed": 5, "stop": ".", "max_tokens": 0}
{"prompt": "And God said", "seed": 6, "max_tokens": 30}
EOF
"$TOK" generate --batch "$T/p.jsonl" -n 20 --seed 9 --stats >"$T/out" 2>"$T/err" || fail "--batch: $(cat "$T/err")"
[ "$(wc -l <"$T/out")" == 6 ] || fail "--batch: expected 6 lines: $(cat "$T/out")"
single() {  # single PROMPT ARGS...: [ids, text] of a single run
  "$TOK" generate --json "$1" "${@:2}" | python3 -c 'import json,sys; j=json.load(sys.stdin); print(json.dumps([j["ids"], j["text"]]))'
}
batch_line() {  # batch_line FILE N: [ids, text] of output line N (0-based)
  python3 -c 'import json,sys; j=json.loads(open(sys.argv[1]).read().splitlines()[int(sys.argv[2])]); assert j["index"]==int(sys.argv[2]); print(json.dumps([j["ids"], j["text"]]))' "$1" "$2"
}
expect_eq "line 0" "$(single "In the beginning" -n 12 --seed 1)" "$(batch_line "$T/out" 0)"
expect_eq "line 1" "$(single "And Jesus said unto them" -n 20 --seed 2 --temperature 1.2 --top-k 10)" "$(batch_line "$T/out" 1)"
expect_eq "line 2" "$(single "The LORD is my shepherd" -n 9 --seed 9 --temperature 0)" "$(batch_line "$T/out" 2)"
expect_eq "line 3" "$(single "Blessed are the" -n 40 --seed 4 --top-p 0.5 --stop , --stop ';')" "$(batch_line "$T/out" 3)"
expect_eq "line 4" '[[], ""]' "$(batch_line "$T/out" 4)"
expect_eq "line 5" "$(single "And God said" -n 30 --seed 6)" "$(batch_line "$T/out" 5)"
python3 -c '
import json,sys
lines=[json.loads(l) for l in open(sys.argv[1])]
assert [l["finish_reason"] for l in lines][4]=="max_tokens", lines
assert all(l["tokens"]==len(l["ids"]) for l in lines)
s=json.loads(open(sys.argv[2]).read().strip().splitlines()[-1])
for k in ["sequences","generated_tokens","tokens_per_s","peak_in_flight","preemptions","kv_blocks_peak","kv_bytes_peak","kv_bytes_contiguous","kv_blocks_in_use"]:
    assert k in s, k
assert s["sequences"]==6 and s["kv_blocks_in_use"]==0 and s["preemptions"]==0, s
assert s["kv_bytes_peak"] < s["kv_bytes_contiguous"], s
print(s["kv_bytes_per_token"] * s["kv_block_tokens"])' "$T/out" "$T/err" >"$T/block" || fail "--batch output/stats: $(cat "$T/out" "$T/err")"

# A tiny budget (14 blocks of 4 tokens: the longest request fits alone, not
# all together) forces preemptions; the output does not change.
budget=$(( $(cat "$T/block") / 4 * 14 ))
"$TOK" generate --batch "$T/p.jsonl" -n 20 --seed 9 --stats --kv-block 4 --kv-budget "$budget" >"$T/out2" 2>"$T/err2" \
  || fail "--batch with budget: $(cat "$T/err2")"
expect_eq "batch under a tiny budget" "$(cat "$T/out")" "$(cat "$T/out2")"
python3 -c '
import json,sys
s=json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
assert s["preemptions"]>0 and s["kv_blocks_peak"]<=14 and s["kv_blocks_in_use"]==0, s' "$T/err2" \
  || fail "no preemption under a tiny budget: $(cat "$T/err2")"
# Without --stats: one human line on stderr.
"$TOK" generate --batch "$T/p.jsonl" -n 3 --seed 9 >/dev/null 2>"$T/err3" || fail "--batch -n 3"
grep -q "^batch: 6 sequences" "$T/err3" || fail "batch report: $(cat "$T/err3")"
# Prompts from stdin.
expect_eq "batch from stdin" "$(cat "$T/out")" "$("$TOK" generate --batch - -n 20 --seed 9 <"$T/p.jsonl" 2>/dev/null)"

# Bad lines: FILE:LINE, nothing generated, exit 1.
bad() {  # bad LINE PATTERN
  printf '{"prompt": "ok"}\n%s\n' "$1" >"$T/bad.jsonl"
  expect_error 1 "$2" "$TOK" generate --batch "$T/bad.jsonl"
  [ ! -s "$T/out" ] || fail "output before an error: $(cat "$T/out")"
}
bad '{"prompt": "x", "temprature": 1}' 'bad.jsonl:2: unknown key "temprature"'
bad '{"prompt": 5}' 'bad.jsonl:2: "prompt" must be a string'
bad '{"prompt": "x", "max_tokens": -1}' 'bad.jsonl:2: "max_tokens" must be'
bad '{"prompt": "x", "stop": [1]}' 'bad.jsonl:2: "stop" must be a string or an array'
bad '{"prompt": "x", "seed": "7"}' 'bad.jsonl:2: "seed" must be'
bad '{"prompt": "x",' 'bad.jsonl:2: malformed JSON'
bad '[1, 2]' 'bad.jsonl:2: expected a JSON object'
bad '{"max_tokens": 3}' 'bad.jsonl:2: missing "prompt"'
printf '{"prompt": "ok"}\n{"prompt": "And God said, Let there be light"}\n' >"$T/long.jsonl"
expect_error 1 'long.jsonl:2: the prompt has [0-9]+ tokens, more than the context' "$TOK" generate --ctx 4 --batch "$T/long.jsonl"
expect_error 1 "p.jsonl:1: .*KV blocks.*--kv-budget" "$TOK" generate --batch "$T/p.jsonl" --kv-block 1 --kv-budget "$(( $(cat "$T/block") / 16 * 3 ))"
: >"$T/empty.jsonl"
expect_error 1 "empty.jsonl: no requests" "$TOK" generate --batch "$T/empty.jsonl"
expect_error 1 "nope.jsonl" "$TOK" generate --batch "$T/nope.jsonl"
expect_status 2 "$TOK" generate --batch "$T/p.jsonl" "a prompt"
expect_status 2 "$TOK" generate --samples 2 --beams 2 "x"
expect_status 2 "$TOK" generate --samples 0 "x"
expect_status 2 "$TOK" generate --samples 2 --kv-policy window:8 "x"

# --samples: sample i is `tok generate --seed S+i`; sharing changes nothing
# but memory.
"$TOK" generate --samples 3 -n 15 --seed 20 "And it came to pass" >"$T/s" || fail "--samples"
expect_eq "sample headers" "--- sample 0 ---|--- sample 1 ---|--- sample 2 ---" "$(grep '^--- sample' "$T/s" | paste -sd '|')"
"$TOK" generate --samples 3 -n 15 --seed 20 --json --kv-block 4 "And it came to pass" >"$T/sj" || fail "--samples --json"
"$TOK" generate --samples 3 -n 15 --seed 20 --json --kv-block 4 --no-share "And it came to pass" >"$T/sn" || fail "--no-share"
for i in 0 1 2; do
  want=$(single "And it came to pass" -n 15 --seed $((20 + i)))
  got=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["samples"][int(sys.argv[2])]; print(json.dumps([s["ids"], s["text"]]))' "$T/sj" $i)
  expect_eq "sample $i = seed $((20 + i))" "$want" "$got"
done
python3 -c '
import json,sys
a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2]))
assert [s["ids"] for s in a["samples"]]==[s["ids"] for s in b["samples"]]
assert a["stats"]["kv_shared_blocks"]>0 and a["stats"]["kv_bytes_saved"]>0, a["stats"]
assert b["stats"]["kv_shared_blocks"]==0 and b["stats"]["kv_bytes_saved"]==0, b["stats"]
assert a["stats"]["kv_blocks_peak"]<b["stats"]["kv_blocks_peak"], (a["stats"], b["stats"])' "$T/sj" "$T/sn" \
  || fail "--samples sharing: $(cat "$T/sj" "$T/sn")"

# --beams: one beam is greedy; --json lists the beams, best first.
expect_eq "--beams 1 = --greedy" "$("$TOK" generate --greedy -n 12 "The LORD is my shepherd")" \
  "$("$TOK" generate --beams 1 -n 12 "The LORD is my shepherd")"
"$TOK" generate --beams 4 -n 12 --json "The LORD is my shepherd" >"$T/b" || fail "--beams 4"
python3 -c '
import json,sys
j=json.load(open(sys.argv[1])); b=j["beams"]
assert b and j["text"]==b[0]["text"], j
assert all(b[i]["score"]>=b[i+1]["score"] for i in range(len(b)-1)), b
assert j["stats"]["kv_blocks_in_use"]==0, j' "$T/b" || fail "--beams --json: $(cat "$T/b")"
