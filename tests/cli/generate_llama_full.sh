# tok generate vs llama.cpp: the same greedy ids from the same prompt ids on
# the same GGUF, at F32 and Q8_0, for the default model and a random qwen2
# model (llama_peer.inc says how near ties are judged). llama.cpp keeps its
# KV cache in F16 by default, so the Q8_0 runs give tok the same storage
# (--kv-type f16): with tok's default f32 cache the two Q8_0 runs part at
# near ties (0.03-0.04 nats apart) after 7 and 12 ids on the default model.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/llama_peer.inc"
M="$TOK_ROOT/vocab/tok-tiny-bible.gguf"
"$TOK" quantize "$M" "$T/q8.gguf" --type q8_0 2>/dev/null || fail "quantize"
/usr/bin/python3 "$TOK_ROOT/scripts/make-random-model" "$T/qwen.gguf" --arch qwen2 --dim 128 --layers 2 \
  --heads 4 --kv-heads 2 --ffn 256 --vocab 300 2>/dev/null || fail "make-random-model"
llama_check "$M" "In the beginning" 32
llama_check "$M" "And Jesus said to them," 32
llama_check "$M" "In the beginning" 32 --kv-type f16
llama_check "$T/q8.gguf" "In the beginning" 32 --kv-type f16
llama_check "$T/q8.gguf" "And Jesus said to them," 32 --kv-type f16
llama_check "$T/qwen.gguf" "hello world" 16
