# Hostile inputs, round two (issue 19): each ends in one clear line within
# seconds, or works; never a hang, an abort or unbounded growth.
source "$(dirname "$0")/lib.sh"
printf 'hello world\n' >"$T/f"

# A named pipe whose writer is quick is opened once (a second open waited forever).
mkfifo "$T/p"
for i in 1 2 3 4 5; do
  (printf 'hi\n' >"$T/p") &
  got=$(timeout 10 "$TOK" count -q "$T/p") || fail "count of a FIFO with a short writer hung or failed (run $i)"
  expect_eq "count of a FIFO (run $i)" 2 "$got"
  wait
done

# No piece boundary: /dev/zero stops at the piece limit instead of growing.
expect_error 1 "/dev/zero: no piece boundary in the .* MiB from byte 0.* at most 16 MiB" timeout 20 "$TOK" count /dev/zero
expect_error 1 "<stdin>: no piece boundary" timeout 20 "$TOK" count - </dev/zero
expect_error 1 "/dev/zero: no piece boundary" timeout 20 "$TOK" encode /dev/zero
# JSON inputs and vocabularies read from a device stop at 256 MiB.
expect_error 1 "/dev/zero: a stream of more than 256 MiB" timeout 20 "$TOK" count --chat /dev/zero
expect_error 1 "/dev/zero: a stream of more than 256 MiB" timeout 20 "$TOK" count --models /dev/zero -m gpt-4o "$T/f"

# Exponential glob backtracking: 12 stars against a 44-letter name.
mkdir -p "$T/tree"
name=$(printf 'a%.0s' $(seq 44))
printf 'x\n' >"$T/tree/$name"
printf '*a*a*a*a*a*a*a*a*a*a*a*a*b\n' >"$T/tree/.gitignore"
timeout 10 "$TOK" count -q "$T/tree" >/dev/null || fail "ignore matching took over 10 s"
timeout 10 "$TOK" count -q --include '*a*a*a*a*a*a*a*a*a*a*a*a*b' "$T/tree" >/dev/null ||
  fail "--include matching took over 10 s"

# Deep nesting: any JSON input, and Sequences in a tokenizer.json.
head -c 100000 /dev/zero | tr '\0' '[' >"$T/deep.json"
expect_error 1 "deep.json:1:257: JSON nested deeper than 256 levels" "$TOK" count --chat "$T/deep.json"
seq_open='' seq_close=''
for i in $(seq 100); do seq_open+='{"type":"Sequence","normalizers":['; seq_close+=']}'; done
printf '{"model":{"type":"BPE","vocab":{"a":0,"b":1},"merges":[]},"normalizer":%s%s}' \
  "$seq_open" "$seq_close" >"$T/tokenizer.json"
expect_error 1 "tokenizer.json: normalizer Sequence nested deeper than 64 levels" \
  timeout 10 "$TOK" encode -e "$T/tokenizer.json" "$T/f"
printf '{"model":{"type":"BPE","vocab":{"a":0,"b":1},"merges":[]},"pre_tokenizer":%s%s}' \
  "${seq_open//normalizers/pretokenizers}" "$seq_close" >"$T/tokenizer.json"
expect_error 1 "tokenizer.json: pre-tokenizer Sequence nested deeper than 64 levels" \
  timeout 10 "$TOK" encode -e "$T/tokenizer.json" "$T/f"

# Negative, overflowing and non-finite numbers are usage errors naming the flag and range.
expect_error 2 "tokens: must be an integer from 0 to" "$TOK" truncate -n -1 "$T/f"
expect_error 2 "tokens: must be an integer from 1 to" "$TOK" chunk -n -1 "$T/f"
expect_error 2 "vocab-size: must be an integer from 1 to" "$TOK" train --vocab-size -1 -o "$T/v" "$T/f"
expect_error 2 "budget: must be an integer from 0 to" "$TOK" count --max-tokens -1 "$T/f"
expect_error 2 "output-tokens: must be an integer from 0 to" "$TOK" count -m gpt-4o --output-tokens -1 "$T/f"
expect_error 2 "output-tokens: must be an integer from 0 to" \
  "$TOK" count -m gpt-4o --output-tokens 18446744073709551613 "$T/f"
expect_error 2 "seed: must be an integer from 0 to" "$TOK" generate --seed -1 hi
expect_error 2 "top-k: must be an integer from 0 to 2147483647, not '-1'" "$TOK" generate --top-k -1 hi
for flag in --temperature --top-p --min-p --repeat-penalty; do
  for v in nan inf -inf; do
    expect_error 2 "${flag#--}: must be a number from" "$TOK" generate "$flag" "$v" hi
  done
done
# --max-tokens 0 is a budget of nothing, not "no budget".
expect_status 3 "$TOK" count --max-tokens 0 "$T/f"

# Control characters in file names do not reach the terminal raw.
bad=$(printf 'x\033[31my\nz')
printf 'hello\n' >"$T/$bad"
"$TOK" count "$T/$bad" "$T/f" >"$T/table" || fail "count of a file with control characters failed"
grep -q $'\033' "$T/table" && fail "ESC reached the table: $(cat -v "$T/table")"
grep -qF 'x\x1b[31my\nz' "$T/table" || fail "name not escaped in the table: $(cat -v "$T/table")"
expect_eq "table rows" 4 "$(wc -l <"$T/table" | tr -d ' ')"
printf '{"custom_id":"r\\u001b[2J1","method":"POST","url":"/v1/chat/completions","body":{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}}\n' >"$T/batch.jsonl"
"$TOK" count -m gpt-4o --batch "$T/batch.jsonl" >"$T/table" || fail "count --batch failed: $(cat "$T/err")"
grep -q $'\033' "$T/table" && fail "ESC from a custom_id reached the table: $(cat -v "$T/table")"

# tok decode FILE reads the file's ids; a number stays an id.
printf 'hello world' | "$TOK" encode >"$T/ids.txt"
expect_eq "decode a file of ids" "hello world" "$("$TOK" decode "$T/ids.txt")"
expect_error 1 "is not a token id" "$TOK" decode "$T/no-such-ids.txt"

# vocab info cuts a huge token in its table; -e on a device says what it is; empty model names.
expect_error 1 "/dev/zero: not a regular file" "$TOK" count -e /dev/zero "$T/f"
expect_error 1 "^tok: error: empty model name" "$TOK" count -m "" "$T/f"

# NaN or negative epsilon / RoPE base in a GGUF: an error, not "perplexity nan" with exit 0.
G="$TOK_ROOT/tests/fuzz/corpus/gguf/llama_f32_tied.gguf"
patch_f32() {  # patch_f32 IN OUT KEY VALUE: sets the float32 metadata value KEY
  /usr/bin/python3 - "$@" <<'PY'
import struct, sys
src, dst, key, value = sys.argv[1], sys.argv[2], sys.argv[3].encode(), float(sys.argv[4])
b = bytearray(open(src, "rb").read())
at = b.index(struct.pack("<Q", len(key)) + key) + 8 + len(key)
assert struct.unpack_from("<I", b, at)[0] == 6, "not a float32"
struct.pack_into("<f", b, at + 4, value)
open(dst, "wb").write(b)
PY
}
if grep -q layer_norm_rms_epsilon "$G"; then
  patch_f32 "$G" "$T/eps.gguf" llama.attention.layer_norm_rms_epsilon nan
  expect_error 1 "eps.gguf: llama.attention.layer_norm_rms_epsilon is nan" "$TOK" generate -m "$T/eps.gguf" -n 1 hi
  patch_f32 "$G" "$T/eps.gguf" llama.attention.layer_norm_rms_epsilon -1
  expect_error 1 "eps.gguf: llama.attention.layer_norm_rms_epsilon is -1" "$TOK" score -m "$T/eps.gguf" "$T/f"
fi
if grep -q rope.freq_base "$G"; then
  patch_f32 "$G" "$T/rope.gguf" llama.rope.freq_base -10000
  expect_error 1 "rope.gguf: llama.rope.freq_base is -10000; expected a positive number" \
    "$TOK" generate -m "$T/rope.gguf" -n 1 hi
fi
exit 0
