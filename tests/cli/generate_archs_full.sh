# Every architecture tok runs, on a random-weight GGUF with that family's
# structure scaled down (scripts/make-random-model --arch: head ratios, head
# width, norms, biases, RoPE settings and metadata keys of Llama 3.2, SmolLM3,
# Qwen2.5, Qwen3, Gemma 3 and Phi-4-mini), checked two ways:
#  - greedy ids equal llama.cpp's for 32 tokens (llama_peer.inc);
#  - along that path, tok's top-5 log-probabilities at every step are within
#    2e-3 nats of a float64 PyTorch forward of the same architecture
#    (scripts/lib/arch_reference.py; Debian python3-torch), and tok's greedy
#    pick is the reference's, or within 1e-3 nats of it.
# Gemma 3 has six layers (five sliding-window ones with a window of 8, then a
# global one), so 40 positions cross the window; phi3 runs once with the
# short LongRoPE factors (context 256 of 512) and once with the long ones (1024).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/llama_peer.inc"
if ! /usr/bin/python3 -c 'import torch, numpy' 2>/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-torch python3-numpy >/dev/null 2>&1
  fi
  /usr/bin/python3 -c 'import torch, numpy' 2>/dev/null || fail "PyTorch is missing (apt-get install python3-torch python3-numpy)"
fi

torch_check() {  # torch_check MODEL CONFIG CTX: compares $T/tok.json with the reference
  python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(json.dumps(j["prompt_ids"] + j["ids"][:-1]))' \
    "$T/tok.json" >"$T/seq.json"
  /usr/bin/python3 "$TOK_ROOT/scripts/lib/arch_reference.py" "$1" "$2" "$(cat "$T/seq.json")" "$3" >"$T/ref.json" \
    || fail "the PyTorch reference failed on $1"
  python3 - "$T/tok.json" "$T/ref.json" "$1" <<'PY' || exit 1
import json, sys
tj, ref = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))["logprobs"]
n0, worst = len(tj["prompt_ids"]) - 1, 0.0
for k, step in enumerate(tj["logprobs"]):
    row = ref[n0 + k]
    for c in step["top"]:
        worst = max(worst, abs(c["logprob"] - row[c["id"]]))
    best = max(range(len(row)), key=row.__getitem__)
    if row[best] - row[tj["ids"][k]] > 1e-3:
        sys.exit(f"FAIL: {sys.argv[3]}: step {k}: tok picked {tj['ids'][k]}, the reference {best} "
                 f"({row[best] - row[tj['ids'][k]]:.4f} nats better)")
if worst > 2e-3:
    sys.exit(f"FAIL: {sys.argv[3]}: log-probabilities differ from the PyTorch reference by up to {worst:.2e}")
print(f"ok {sys.argv[3].split('/')[-1]}: {len(tj['ids'])} steps within {worst:.1e} nats of PyTorch")
PY
}

for fam in llama3 smollm3 qwen2 qwen3 gemma3 phi3; do
  ctx=256
  [ $fam = phi3 ] && ctx=1024
  /usr/bin/python3 "$TOK_ROOT/scripts/make-random-model" "$T/$fam.gguf" --arch $fam --vocab 300 --ctx $ctx \
    --config-out "$T/$fam.json" 2>/dev/null || fail "make-random-model --arch $fam"
  CTX=256 llama_check "$T/$fam.gguf" "hello world, once more" 32
  torch_check "$T/$fam.gguf" "$T/$fam.json" 256
done
CTX=1024 llama_check "$T/phi3.gguf" "hello world, once more" 32
torch_check "$T/phi3.gguf" "$T/phi3.json" 1024
