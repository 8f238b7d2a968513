# Every weight type tok computes with, against llama.cpp (node-llama-cpp
# 3.21.1, scripts/peers): a random llama model (dim 256, ffn 512: whole
# K-quant super-blocks) quantized by `tok quantize` to each type, and to a
# Q4_K_M mix (Q4_K with Q6_K for output, attn_v and ffn_down in some layers,
# as llama-quantize mixes), generates llama.cpp's greedy ids. tok multiplies
# Q4_K / Q6_K with float activations in decode (Q8_K ones in AVX-512 prefill)
# and the K-quants Q2_K / Q3_K / Q5_K with Q8_0 ones where llama.cpp uses Q8_K
# (256-value blocks), so ids may part at
# a near tie (llama_peer.inc says how near); Q4_1 / Q5_0 / Q5_1 use Q8_0
# activations as llama.cpp does (its Q8_1 adds an fp16 block sum). KV cache
# f16, as llama.cpp's.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/llama_peer.inc"
/usr/bin/python3 "$TOK_ROOT/scripts/make-random-model" "$T/f32.gguf" --dim 256 --layers 8 --heads 8 \
  --kv-heads 4 --ffn 512 --vocab 300 2>/dev/null || fail "make-random-model"
for type in q4_1 q5_0 q5_1 q2_K q3_K q4_K q5_K q6_K q4_K_M; do
  "$TOK" quantize "$T/f32.gguf" "$T/$type.gguf" --type "$type" 2>"$T/q.err" || fail "quantize $type: $(cat "$T/q.err")"
  # Two and three bits per weight: llama.cpp rounds the activations to Q8_K
  # for these and tok to Q8_0, which moves logits by more than at higher
  # bit widths; a parting within 0.3 nats still counts as a near tie.
  # The Q4_K_M mix rounds its prompt to Q8_K, as llama.cpp does, but its
  # decode steps not: the two roundings meet at each step, 0.15 nats.
  case $type in q2_K|q3_K) near=0.3 ;; q4_K_M) near=0.15 ;; *) near=0.1 ;; esac
  NEAR_TIE=$near llama_check "$T/$type.gguf" "hello world" 32 --kv-type f16
done
echo "ok: every type generated llama.cpp's greedy ids"
