# Every weight type tok computes with, against llama.cpp (node-llama-cpp
# 3.21.1, scripts/peers): a random llama model (dim 256, ffn 512: whole
# K-quant super-blocks; with AVX-512, Q4_0 rows repacked in groups of four
# and Q4_K rows in groups of sixteen)
# quantized by `tok quantize` to each type, and to a
# Q4_K_M mix (Q4_K with Q6_K for output, attn_v and ffn_down in some layers,
# as llama-quantize mixes), generates llama.cpp's greedy ids. Both tools
# multiply the 32-value types with Q8_0 activations in tok (Q8_1 in
# llama.cpp), Q2_K / Q3_K / Q5_K with Q8_K ones (Q8_0 on NEON) and Q4_K /
# Q6_K with Q8_K ones (byte tiles for Q4_K
# and Q5_K, int16 for Q2_K, Q3_K and Q6_K, for prompts with AVX-512 in tok),
# summing in different orders, and
# the random model's logits are nearly flat: ids may part at a near tie
# (llama_peer.inc says how near). KV cache f16, as llama.cpp's.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/llama_peer.inc"
/usr/bin/python3 "$TOK_ROOT/scripts/make-random-model" "$T/f32.gguf" --dim 256 --layers 8 --heads 8 \
  --kv-heads 4 --ffn 512 --vocab 300 2>/dev/null || fail "make-random-model"
for type in q4_0 q4_1 q5_0 q5_1 q2_K q3_K q4_K q5_K q6_K q4_K_M; do
  "$TOK" quantize "$T/f32.gguf" "$T/$type.gguf" --type "$type" 2>"$T/q.err" || fail "quantize $type: $(cat "$T/q.err")"
  # Two and three bits per weight: llama.cpp rounds the activations to Q8_K
  # for these and tok to Q8_0 for prompts without AVX-512 (and decode on
  # NEON), which moves logits by more than at higher bit widths; a parting within 0.3 nats still counts as a near tie. The
  # other K-quants parted within 0.16 nats (0.1 for the 32-value types).
  case $type in q2_K|q3_K) near=0.3 ;; q4_K|q5_K|q6_K|q4_K_M) near=0.2 ;; *) near=0.1 ;; esac
  NEAR_TIE=$near llama_check "$T/$type.gguf" "hello world" 32 --kv-type f16
done
echo "ok: every type generated llama.cpp's greedy ids"
