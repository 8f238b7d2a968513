# Clear messages for vocabulary and model files that are wrong in a way the
# parser accepts (issue 19, item 17): each is one line naming the file and
# what is wrong, exit 1, where tok used to go on silently or mislead.
source "$(dirname "$0")/lib.sh"
printf 'ab\n' >"$T/f"

# Byte-level vocab.json + merges.txt and tokenizer.json, written by Python.
/usr/bin/python3 - "$T" <<'PY'
import json, os, sys
t = sys.argv[1]
bs = list(range(33, 127)) + list(range(161, 173)) + list(range(174, 256))
cs = bs[:]
for b in range(256):
    if b not in bs:
        cs.append(256 + sum(1 for x in cs if x >= 256))
        bs.append(b)
vocab = {chr(c): i for i, c in enumerate(cs)}
vocab["ab"] = 256
os.makedirs(f"{t}/dup", exist_ok=True)
text = json.dumps(vocab)
open(f"{t}/dup/vocab.json", "w").write(text[:-1] + ', "a": 300}')
open(f"{t}/dup/merges.txt", "w").write("#version: 0.2\na b\n")
model = {"type": "BPE", "vocab": vocab, "merges": ["a b"]}
pre = {"type": "ByteLevel", "add_prefix_space": False, "use_regex": True}
doc = {"model": model, "pre_tokenizer": pre, "decoder": {"type": "ByteLevel"}}
text = json.dumps(doc)
open(f"{t}/dup.json", "w").write(text.replace('"ab": 256', '"ab": 256, "b": 301'))
doc["added_tokens"] = [{"id": vocab["b"], "content": "<|x|>", "special": True}]
json.dump(doc, open(f"{t}/collide.json", "w"))
os.makedirs(f"{t}/longmerge", exist_ok=True)
json.dump(vocab, open(f"{t}/longmerge/vocab.json", "w"))
open(f"{t}/longmerge/merges.txt", "w").write("#version: 0.2\n" + "a" * 10_000_000 + " b\n")
PY

# A key named twice in a vocabulary object says so (it was "token 'he' is
# not in the vocabulary", or nothing at all).
expect_error 1 "dup/vocab.json: duplicate key 'a' in a JSON object" "$TOK" encode -e "$T/dup" "$T/f"
expect_error 1 "dup/vocab.json: duplicate key 'a'" "$TOK" encode -e "$T/dup/vocab.json" "$T/f"
expect_error 1 "dup.json: duplicate key 'b' in a JSON object" "$TOK" encode -e "$T/dup.json" "$T/f"
# An added token on a byte token's id: both texts would encode to one id.
expect_error 1 "collide.json: added token '<\|x\|>' has id 65, which model.vocab gives to 'b'" \
  "$TOK" encode -e "$T/collide.json" "$T/f"
# A 10 MB merges.txt line is quoted cut to 40 bytes.
expect_error 1 "merges.txt: merge 1 \('a{40}\.\.\. b'\): token 'a{40}\.\.\.' is not in the vocabulary$" \
  "$TOK" encode -e "$T/longmerge" "$T/f"
[ "$(wc -c <"$T/err")" -lt 300 ] || fail "the long merge error is $(wc -c <"$T/err") bytes"

# Sidecar special tokens sharing one id.
V="$TOK_ROOT/vocab/r50k_base.tiktoken"
head -n -1 "$V" >"$T/side.tiktoken"
printf '{"pattern": "gpt2", "special_tokens": {"<|a|>": 60000, "<|b|>": 60000}}' >"$T/side.tiktoken.json"
expect_error 1 "side.tiktoken.json: special tokens <\|a\|> and <\|b\|> share the id 60000" \
  "$TOK" encode -e "$T/side.tiktoken" "$T/f"
printf '{"pattern": "gpt2", "special_tokens": {"<|a|>": 60000, "<|a|>": 60001}}' >"$T/side.tiktoken.json"
expect_error 1 "side.tiktoken.json: duplicate key '<\|a\|>'" "$TOK" encode -e "$T/side.tiktoken" "$T/f"

# vocab info shows at most 256 bytes of a 1 MB token (--json keeps it whole).
{ printf '%s 0\n' "$(head -c 1000000 /dev/zero | tr '\0' A | base64 -w0)"; } >"$T/huge.tiktoken"
for b in $(seq 0 255); do printf '%s %d\n' "$(printf "\\$(printf %03o "$b")" | base64)" $((b + 1)); done \
  >>"$T/huge.tiktoken"
"$TOK" vocab info -e "$T/huge.tiktoken" --pattern gpt2 >"$T/out" 2>"$T/err" ||
  fail "vocab info on a 1 MB token failed: $(head -c 300 "$T/err")"
[ "$(wc -c <"$T/out")" -lt 20000 ] || fail "vocab info printed $(wc -c <"$T/out") bytes for a 1 MB token"

# GGUF: a BOS id past the vocabulary (was silently dropped).
G="$TOK_ROOT/tests/fuzz/corpus/gguf/llama_f32_tied.gguf"
/usr/bin/python3 - "$G" "$T/bos.gguf" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
key = b"tokenizer.ggml.bos_token_id"
at = b.index(struct.pack("<Q", len(key)) + key) + 8 + len(key)
assert struct.unpack_from("<I", b, at)[0] == 4, "not a uint32"
struct.pack_into("<I", b, at + 4, 99999)
open(sys.argv[2], "wb").write(b)
PY
expect_error 1 "bos.gguf: GGUF: tokenizer.ggml.bos_token_id is 99999, past the vocabulary's 262 tokens" \
  "$TOK" generate -m "$T/bos.gguf" -n 1 hi

# GGUF: a 3-D token_embd is named as such (it was "missing").
if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
  /usr/bin/python3 - "$TOK_ROOT" "$T" <<'PY'
import sys
root, out = sys.argv[1], sys.argv[2]
src = open(f"{root}/tests/fuzz/make_gguf_seeds.py").read().split("os.makedirs(OUT")[0]
src = src.replace("r(vocab, dim), t)", "r(vocab, dim, 1), t)", 1)  # token_embd only
g = {"__file__": f"{root}/tests/fuzz/make_gguf_seeds.py", "__name__": "seeds"}
exec(src, g)
g["OUT"] = out
g["model"]("embd3.gguf")
PY
  expect_error 1 "embd3.gguf: tensor token_embd.weight has 3 dimensions; expected 2" \
    "$TOK" generate -m "$T/embd3.gguf" -n 1 hi
else
  echo "skip: the 3-D token_embd check needs numpy in /usr/bin/python3"
fi

# encode /dev/zero into a pipe ends within seconds with one line: no token
# exists before the first piece boundary, and there is none.
timeout 20 "$TOK" encode /dev/zero 2>"$T/err" | head -c 100 >"$T/out"
[ "${PIPESTATUS[0]}" == 1 ] || fail "encode /dev/zero | head: exit ${PIPESTATUS[0]}"
grep -q "^tok: error: /dev/zero: no piece boundary" "$T/err" || fail "encode /dev/zero: $(cat "$T/err")"
exit 0
