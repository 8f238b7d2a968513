# Weights that hold NaN or infinity (issue 42 item 18): generate and score
# stop with one line naming the first layer whose output is not finite and
# the tensor of that layer whose weights are not, the same line with every
# kernel set (a NaN scale used to give each set its own token ids), instead
# of printing token 0 or "perplexity nan" with status 0. Norm vectors are
# checked when the model loads.
source "$(dirname "$0")/lib.sh"
/usr/bin/python3 "$TOK_ROOT/scripts/make-random-model" "$T/f32.gguf" --dim 256 --layers 3 --heads 4 \
  --kv-heads 2 --ffn 512 --vocab 300 2>/dev/null || fail "make-random-model"
echo "In the beginning" >"$T/text"
# poke SRC DST TENSOR BYTE_OFFSET HEX: a copy of SRC with the bytes HEX
# written at BYTE_OFFSET into TENSOR's data.
poke() {
  TOK_ROOT=$TOK_ROOT /usr/bin/python3 - "$@" <<'PY' || fail "poke $*"
import os, shutil, sys
sys.path.insert(0, os.environ["TOK_ROOT"] + "/scripts/lib")
import gguf_read
src, dst, name, off, hexbytes = sys.argv[1:6]
shutil.copyfile(src, dst)
t = gguf_read.layout(dst).tensors[name]
with open(dst, "r+b") as f:
    f.seek(t[2] + int(off))
    f.write(bytes.fromhex(hexbytes))
PY
}
NAN=0000c07f INF=0000807f  # f32, little-endian
F16_NAN=007e
# run_all WHAT PATTERN MODEL: generate and score fail alike, with every kernel set.
run_all() {
  local what=$1 pat=$2 m=$3 env first=""
  for env in "" TOK_NO_AVX512=1 TOK_NO_SIMD=1 TOK_NO_REPACK=1; do
    expect_error 1 "$pat" env $env "$TOK" generate -m "$m" --greedy -n 4 "In the beginning"
    grep -qF "tok: error: $m: " "$T/err" || fail "$what ($env): the error does not name the file: $(cat "$T/err")"
    [ -s "$T/out" ] && fail "$what ($env): generate printed text: $(od -c "$T/out" | head -3)"
    [ -z "$first" ] && first=$(cat "$T/err")
    expect_eq "$what: the same error with ${env:-the best kernels}" "$first" "$(cat "$T/err")"
    expect_error 1 "$pat" env $env "$TOK" score -m "$m" "$T/text"
    expect_eq "$what: score's error ($env)" "$first" "$(cat "$T/err")"
  done
}

expect_status 0 "$TOK" generate -m "$T/f32.gguf" --greedy -n 4 "In the beginning"  # the clean model runs

poke "$T/f32.gguf" "$T/m.gguf" blk.1.attn_q.weight 20 $NAN
run_all "NaN in attn_q" 'the model produced NaN at layer 1 \(weights blk\.1\.attn_q\.weight\)$' "$T/m.gguf"
poke "$T/f32.gguf" "$T/m.gguf" blk.2.ffn_down.weight 4096 $INF
run_all "infinity in ffn_down" 'the model produced (NaN|an infinity) at layer 2 \(weights blk\.2\.ffn_down\.weight\)$' "$T/m.gguf"
poke "$T/f32.gguf" "$T/m.gguf" output.weight 0 $NAN
run_all "NaN in output" 'the model produced NaN at the output layer \(weights output\.weight\)$' "$T/m.gguf"
# The prompt's bytes are its token ids (a byte-level vocabulary): row 'I' = 73.
poke "$T/f32.gguf" "$T/m.gguf" token_embd.weight $((73 * 256 * 4 + 8)) $NAN
run_all "NaN in an embedding row" 'the model produced NaN at the token embeddings \(weights token_embd\.weight\)$' "$T/m.gguf"
# Norms: refused at load, before anything runs.
poke "$T/f32.gguf" "$T/m.gguf" blk.0.attn_norm.weight 12 $NAN
run_all "NaN in a norm" 'weights blk\.0\.attn_norm\.weight hold NaN \(value 3 of 256\): the model would produce NaN at layer 0$' "$T/m.gguf"
poke "$T/f32.gguf" "$T/m.gguf" output_norm.weight 0 $INF
run_all "infinity in the output norm" 'weights output_norm\.weight hold an infinity \(value 0 of 256\): the model would produce NaN at the output layer$' "$T/m.gguf"

# A quantized cache stores the NaN keys of such a model (q8_0 and q4_0 codes
# of NaN were float-to-int conversions of NaN: undefined behaviour, caught by
# UBSan) and generate stops with the same line.
poke "$T/f32.gguf" "$T/m.gguf" blk.1.attn_q.weight 20 $NAN
for kv in q8_0 q4_0; do
  expect_error 1 'the model produced NaN at layer 1 \(weights blk\.1\.attn_q\.weight\)$' \
    "$TOK" generate -m "$T/m.gguf" --kv-type $kv --greedy -n 4 "In the beginning"
done
# Quantizing such weights is refused, naming where they are, and writes nothing.
poke "$T/f32.gguf" "$T/m.gguf" blk.2.ffn_down.weight $((3 * 4)) $NAN
for type in q8_0 q4_0 q4_K; do
  rm -f "$T/q.gguf"
  expect_error 1 "^tok: error: $T/m.gguf: weights blk\.2\.ffn_down\.weight hold NaN \(row 0, value 3 of [0-9]+\): they cannot be quantized\$" \
    "$TOK" quantize "$T/m.gguf" "$T/q.gguf" --type $type
  [ -e "$T/q.gguf" ] && fail "quantize $type left $T/q.gguf"
done
poke "$T/f32.gguf" "$T/m.gguf" blk.0.attn_v.weight 0 $INF
expect_error 1 'weights blk\.0\.attn_v\.weight hold an infinity \(row 0, value 0 of [0-9]+\)' \
  "$TOK" quantize "$T/m.gguf" "$T/q.gguf" --type q8_0

# A NaN block scale (fp16) in quantized weights: each type's scale d is at
# this offset of its first block (Q6_K's after ql, qh and the 16 scales).
for spec in q8_0:0 q4_0:0 q4_K:0 q6_K:208 q5_K:0; do
  type=${spec%%:*} off=${spec#*:}
  "$TOK" quantize "$T/f32.gguf" "$T/q.gguf" --type "$type" 2>/dev/null || fail "quantize $type"
  poke "$T/q.gguf" "$T/m.gguf" blk.1.attn_k.weight "$off" $F16_NAN
  run_all "$type NaN scale" 'the model produced NaN at layer 1 \(weights blk\.1\.attn_k\.weight\)$' "$T/m.gguf"
done
echo "ok: NaN and infinite weights are named, alike with every kernel set"
