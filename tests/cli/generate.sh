# tok generate / score / quantize with the shipped default model.
source "$(dirname "$0")/lib.sh"
M="$TOK_ROOT/vocab/tok-tiny-bible.gguf"
[ -f "$M" ] || fail "default model $M is missing"

# Greedy output is deterministic and is English in the Bible's style.
a=$("$TOK" generate -m "$M" --greedy -n 24 "In the beginning")
b=$("$TOK" generate --greedy -n 24 "In the beginning")  # default model
expect_eq "greedy twice" "$a" "$b"
[ ${#a} -gt 20 ] || fail "greedy output too short: [$a]"

# A seed reproduces sampled text; the prompt may come from stdin.
s1=$(echo -n "And Jesus said" | "$TOK" generate --seed 7 -n 30)
s2=$(echo -n "And Jesus said" | "$TOK" generate --seed 7 -n 30)
expect_eq "same seed" "$s1" "$s2"

# --json: text, ids and stats; the prompt ids are those of tok encode (+BOS).
"$TOK" generate --json --greedy -n 8 "The LORD is my shepherd" >"$T/j" || fail "--json failed"
enc=$(printf 'The LORD is my shepherd' | "$TOK" encode -e "$M" --json)
got=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(json.dumps(j["prompt_ids"][1:],separators=(",",":")))' "$T/j")
expect_eq "prompt ids = tok encode" "$enc" "$got"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert len(j["ids"])==8 and j["text"] and j["stats"]["generated_tokens"]==8' "$T/j" \
  || fail "--json content: $(cat "$T/j")"
# --json greedy text equals the streamed greedy text.
t_json=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["text"])' "$T/j")
t_stream=$("$TOK" generate --greedy -n 8 "The LORD is my shepherd")
expect_eq "json text = streamed text" "$t_stream" "$t_json"

# --stats: one JSON line on stderr with the documented fields.
"$TOK" generate --stats --greedy -n 5 "Hello" >/dev/null 2>"$T/err" || fail "--stats failed"
python3 -c '
import json,sys
j=json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
for k in ["prompt_tokens","generated_tokens","ttft_ms","prefill_tokens_per_s","decode_tokens_per_s","model_bytes","kv_bytes"]:
    assert k in j, k
assert j["generated_tokens"]==5' "$T/err" || fail "--stats: $(cat "$T/err")"

# The default thread count is the CPUs the process may use, not the
# machine's: pinned to one CPU, one thread.
if command -v taskset >/dev/null; then
  cpu=$(taskset -pc $$ | sed 's/.*: //; s/[,-].*//')
  taskset -c "$cpu" "$TOK" generate --stats --greedy -n 1 "Hello" >/dev/null 2>"$T/err" || fail "pinned --stats failed"
  grep -q '"threads":1[,}]' "$T/err" || fail "pinned to CPU $cpu, not 1 thread: $(cat "$T/err")"
else
  echo "skipped: the pinned thread count (taskset, from util-linux, not found)"
fi

# A closed pipe ends generation quietly with status 0.
"$TOK" generate --greedy -n 2000 --ctx 256 "In the beginning" | head -c 5 >/dev/null
expect_eq "generate | head exit status" "0" "${PIPESTATUS[0]}"

# Context full: stops with a message, status 0.
expect_status 0 "$TOK" generate --greedy --ctx 12 -n 100 "In the beginning"
grep -q "context full" "$T/err" || fail "no context-full message: $(cat "$T/err")"
# A prompt longer than the context is an error.
expect_error 1 "more than the context" "$TOK" generate --ctx 2 "In the beginning God created"
expect_error 1 "larger than the model" "$TOK" generate --ctx 100000 "x"

# --stop: the stop string is never printed.
out=$("$TOK" generate --greedy -n 60 --stop "," "In the beginning")
case "$out" in *,*) fail "stop string printed: [$out]" ;; esac
# One value per --stop (issue 43): the argument after it is the prompt, not a
# second stop string (stdin is not read: </dev/null would make it empty).
full=$("$TOK" generate --greedy -n 64 "In the beginning")
case "$full" in *$'\n'*) ;; *) fail "the greedy text has no newline to stop at: [$full]" ;; esac
expect_eq "--stop . PROMPT" "${full%%.*}" "$("$TOK" generate --greedy -n 64 --stop "." "In the beginning" </dev/null)"
expect_eq "--stop . --stop , PROMPT" "${full%%,*}" \
  "$("$TOK" generate --greedy -n 64 --stop "." --stop "," "In the beginning" </dev/null)"
# C escapes: \n is a newline (docs/generate.md's example), \x2e a full stop,
# \\ a backslash; an unknown escape is a usage error.
expect_eq "--stop \\n" "${full%%$'\n'*}" "$("$TOK" generate -m "$M" --greedy -n 64 --stop "\n" "In the beginning" </dev/null)"
expect_eq "--stop \\x2e" "${full%%.*}" "$("$TOK" generate --greedy -n 64 --stop '\x2e' "In the beginning" </dev/null)"
expect_eq "--stop \\\\n (backslash n)" "$full" "$("$TOK" generate --greedy -n 64 --stop '\\n' "In the beginning" </dev/null)"
expect_error 2 "--stop '\\\\q': unknown escape" "$TOK" generate --stop '\q' "In the beginning"
expect_error 2 "two hex digits" "$TOK" generate --stop '\x4' "In the beginning"
# docs/generate.md's example, as written there (on the default model).
out=$("$TOK" generate -m "$M" --greedy -n 64 --stop "\n" "Q: ..." </dev/null) || fail "the documented --stop example failed"
[ -n "$out" ] || fail "the documented --stop example printed nothing"
case "$out" in *$'\n'*) fail "--stop \\n printed a newline: [$out]" ;; esac

# --logprobs in --json: K entries per token, most likely first.
"$TOK" generate --json --greedy -n 3 --logprobs 4 "God said" >"$T/lp"
python3 -c '
import json,sys
j=json.load(open(sys.argv[1])); lp=j["logprobs"]
assert len(lp)==3 and all(len(t["top"])==4 for t in lp)
assert all(t["id"]==t["top"][0]["id"] for t in lp)  # greedy picks the most likely' "$T/lp" || fail "logprobs: $(cat "$T/lp")"

# Errors: one line, status 1.
expect_error 1 "nope.gguf" "$TOK" generate -m "$T/nope.gguf" "x"
printf 'GGUF\3\0\0\0' >"$T/bad.gguf"
expect_error 1 "bad.gguf" "$TOK" generate -m "$T/bad.gguf" "x"

# score: windows of the context length.
head -c 3000 "$TOK_ROOT/tests/data/model/sample.txt" >"$T/s.txt"
"$TOK" score --json "$T/s.txt" >"$T/sc" || fail "score failed"
"$TOK" score --json --ctx 64 "$T/s.txt" >"$T/sc64" || fail "score --ctx failed"
python3 -c '
import json,sys
a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2]))
assert a["windows"]>=2 and b["windows"]>a["windows"], (a,b)
assert 1 < a["perplexity"] < 1000, a  # uniform would be 4096
assert a["tokens"]==b["tokens"] or True' "$T/sc" "$T/sc64" || fail "score: $(cat "$T/sc") $(cat "$T/sc64")"

# quantize: q8_0 and q4_0 copies run and stay close to F32.
"$TOK" quantize "$M" "$T/q8.gguf" --type q8_0 2>/dev/null || fail "quantize q8_0"
"$TOK" quantize "$M" "$T/q4.gguf" --type q4_0 2>/dev/null || fail "quantize q4_0"
[ "$(stat -c %s "$T/q8.gguf")" -lt "$(stat -c %s "$M")" ] || fail "q8_0 file not smaller"
q8=$("$TOK" generate -m "$T/q8.gguf" --greedy -n 8 "In the beginning")
[ -n "$q8" ] || fail "q8_0 generated nothing"
"$TOK" quantize "$M" "$T/q51.gguf" --type Q5_1 2>/dev/null || fail "quantize q5_1"
[ -n "$("$TOK" generate -m "$T/q51.gguf" --greedy -n 8 "In the beginning")" ] || fail "q5_1 generated nothing"
# q4_K_M on rows of 128 (not whole 256-value super-blocks): llama-quantize's
# fallback types (q5_0, and q8_0 where the mix asks for q6_K), each reported,
# instead of "0 tensors converted".
"$TOK" quantize "$M" "$T/q4km.gguf" --type q4_K_M 2>"$T/err" || fail "quantize q4_K_M: $(cat "$T/err")"
grep -q "^tok: warning: blk.0.attn_q.weight: rows of 128 values are not a multiple of q4_K's 256: written as q5_0$" "$T/err" \
  || fail "q4_K_M: no fallback line for attn_q: $(cat "$T/err")"
grep -q "^tok: warning: blk.3.attn_v.weight: rows of 128 values are not a multiple of q6_K's 256: written as q8_0$" "$T/err" \
  || fail "q4_K_M: no fallback line for attn_v: $(cat "$T/err")"
grep -q "q4km.gguf: 29 tensors converted to q4_K_M (29 as a fallback type), 9 kept" "$T/err" \
  || fail "q4_K_M summary: $(tail -1 "$T/err")"
[ -n "$("$TOK" generate -m "$T/q4km.gguf" --greedy -n 8 "In the beginning")" ] || fail "q4_K_M generated nothing"
# A quantized input is quantized again only with --allow-requantize, as llama-quantize.
expect_error 1 "q8.gguf: tensor token_embd.weight is already q8_0: .*--allow-requantize" \
  "$TOK" quantize "$T/q8.gguf" "$T/x.gguf" --type q4_0
[ -e "$T/x.gguf" ] && fail "a refused requantization left an output"
expect_status 0 "$TOK" quantize "$T/q8.gguf" "$T/x.gguf" --type q4_0 --allow-requantize
expect_error 2 "type" "$TOK" quantize "$M" "$T/x.gguf" --type iq2_xs  # a ggml type tok cannot compute with
expect_error 2 "type" "$TOK" quantize "$M" "$T/x.gguf" --type q8_0_m  # only K-quants have an _M mix
exit 0
