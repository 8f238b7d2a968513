# tok generate vs llama.cpp (node-llama-cpp 3.21.1 prebuilt, installed by
# scripts/peers): the same greedy ids from the same prompt ids on the same
# GGUF, at F32 and Q8_0, for the default model and a random qwen2 model.
# F32 must agree on every id. Q8_0 runtimes round differently (llama.cpp
# keeps an F16 KV cache and sums in another order), so a Q8_0 run may part
# from llama.cpp only where tok's own log-probabilities of the two choices are
# within NEAR_TIE nats of each other, after at least MIN_SAME equal ids; the
# continuations after such a point are different texts and are not compared.
source "$(dirname "$0")/lib.sh"
command -v node >/dev/null || fail "node is not installed (apt-get install nodejs); cannot compare with llama.cpp"
NPM=$("$TOK_ROOT/scripts/peers") || fail "scripts/peers could not install the npm peers"
[ -d "$NPM/node_modules/node-llama-cpp" ] || fail "node-llama-cpp is missing from $NPM"
M="$TOK_ROOT/vocab/tok-tiny-bible.gguf"
"$TOK" quantize "$M" "$T/q8.gguf" --type q8_0 2>/dev/null || fail "quantize"
/usr/bin/python3 "$TOK_ROOT/scripts/make-random-model" "$T/qwen.gguf" --arch qwen2 --dim 128 --layers 2 \
  --heads 4 --kv-heads 2 --ffn 256 --vocab 300 2>/dev/null || fail "make-random-model"
NEAR_TIE=0.1 MIN_SAME=6
check() {  # check MODEL PROMPT N [near-tie]
  "$TOK" generate -m "$1" --json --greedy -n "$3" --logprobs 5 --threads 1 "$2" >"$T/tok.json" || fail "tok generate $1"
  ids=$(python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["prompt_ids"]))' "$T/tok.json")
  TOK_NPM_DIR="$NPM" node "$TOK_ROOT/scripts/lib/llama_peer.mjs" "$1" "$ids" "$3" 1 256 >"$T/llama.json" 2>"$T/llama.err" \
    || fail "llama.cpp could not run $1: $(tail -3 "$T/llama.err")"
  python3 - "$T/tok.json" "$T/llama.json" "$1" "${4:-}" "$NEAR_TIE" "$MIN_SAME" <<'PY' || exit 1
import json, sys
tj = json.load(open(sys.argv[1]))
t = tj["ids"]
l = json.loads(open(sys.argv[2]).read().strip().splitlines()[-1])["ids"]
name, near_tie_ok, near, min_same = sys.argv[3].split('/')[-1], sys.argv[4] == "near-tie", float(sys.argv[5]), int(sys.argv[6])
if t == l:
    print(f"ok {name}: {len(t)} greedy ids identical")
    sys.exit(0)
k = next((i for i, (a, b) in enumerate(zip(t, l)) if a != b), min(len(t), len(l)))
top = {e["id"]: e["logprob"] for e in tj["logprobs"][k]["top"]} if k < len(tj["logprobs"]) else {}
gap = top[t[k]] - top[l[k]] if k < len(l) and l[k] in top else None
if near_tie_ok and k >= min_same and gap is not None and gap < near:
    print(f"ok {name}: first {k} greedy ids identical, then a near tie (tok's log-probabilities of "
          f"its {t[k]} and llama.cpp's {l[k]} differ by {gap:.4f} nats)")
    sys.exit(0)
print(f"FAIL: {name}: tok {t} != llama.cpp {l} (first difference at {k}, log-probability gap {gap})", file=sys.stderr)
sys.exit(1)
PY
}
check "$M" "In the beginning" 32
check "$M" "And Jesus said to them," 32
check "$T/q8.gguf" "In the beginning" 32 near-tie
check "$T/q8.gguf" "And Jesus said to them," 32 near-tie
check "$T/qwen.gguf" "hello world" 16
