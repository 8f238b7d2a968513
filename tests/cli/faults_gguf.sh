#!/usr/bin/env bash
# Hostile GGUF models and contexts that cannot fit: tok generate refuses each
# with one line naming the file, before allocating, never a crash. The model
# files are the gguf fuzz seeds (tests/fuzz/corpus/gguf), patched here.
source "$(dirname "$0")/lib.sh"
G="$TOK_ROOT/tests/fuzz/corpus/gguf/llama_f32_tied.gguf"
# patch_u32 IN OUT KEY VALUE: sets the uint32 metadata value KEY.
patch_u32() {
  /usr/bin/python3 - "$@" <<'PY'
import struct, sys
src, dst, key, value = sys.argv[1], sys.argv[2], sys.argv[3].encode(), int(sys.argv[4])
b = bytearray(open(src, "rb").read())
at = b.index(struct.pack("<Q", len(key)) + key) + 8 + len(key)
assert struct.unpack_from("<I", b, at)[0] == 4, "not a uint32"
struct.pack_into("<I", b, at + 4, value)
open(dst, "wb").write(b)
PY
}

# The seed itself runs (context 16).
expect_status 0 "$TOK" generate -m "$G" --greedy -n 3 "hello"
expect_error 1 "^tok: error: $G: --ctx 17 is larger than the model's context of 16 tokens$" \
  "$TOK" generate -m "$G" --ctx 17 "hello"

# A context length beyond int positions.
patch_u32 "$G" "$T/ctx_absurd.gguf" llama.context_length 4000000000
expect_error 1 "^tok: error: $T/ctx_absurd.gguf: llama.context_length 4000000000 is absurd \(tok allows at most 2147483647 positions\)$" \
  "$TOK" generate -m "$T/ctx_absurd.gguf" "hello"

# A context whose KV cache cannot fit: 2^31-1 positions of a 1-layer model
# is 256 GiB; refused before allocating, and accepted with a small --ctx.
patch_u32 "$G" "$T/ctx_huge.gguf" llama.context_length 2147483647
expect_error 1 "^tok: error: $T/ctx_huge.gguf: a context of 2147483647 tokens needs [0-9.]+ GiB \(KV cache of 1 layers\), more than the [0-9.]+ [KMGT]iB of memory available; pass a smaller --ctx$" \
  "$TOK" generate -m "$T/ctx_huge.gguf" "hello"
expect_status 0 "$TOK" generate -m "$T/ctx_huge.gguf" --ctx 64 --greedy -n 2 "hello"
# Under an address-space limit (ulimit -v), the limit is what counts: a
# context of 1 M tokens (128 MiB of KV cache here) is refused under 146 MiB.
if sanitized; then
  echo "skipped: the ulimit -v check (an ASan build reserves terabytes of address space)"
else
  expect_error 1 "needs 1[0-9][0-9] MiB \(KV cache of 1 layers\), more than the [0-9.]+ MiB of memory available" \
    bash -c 'ulimit -v 150000; exec "$0" generate -m "$1" --ctx 1000000 hello' "$TOK" "$T/ctx_huge.gguf"
fi

# Corrupt files: wrong magic, truncated, a size that disagrees with the
# tensors, heads that do not divide the dimension, absurd layer count, an
# unsupported architecture, a directory.
printf 'GGUX\3\0\0\0' >"$T/magic.gguf"
expect_error 1 "^tok: error: $T/magic.gguf: GGUF: not a GGUF file" "$TOK" generate -m "$T/magic.gguf" "x"
head -c 30000 "$G" >"$T/trunc.gguf"
expect_error 1 "^tok: error: $T/trunc.gguf: GGUF: tensor '.*' data .* lies outside .* \(file truncated\?\)" \
  "$TOK" generate -m "$T/trunc.gguf" "x"
patch_u32 "$G" "$T/ffn.gguf" llama.feed_forward_length 64
expect_error 1 "^tok: error: $T/ffn.gguf: tensor blk\.0\.ffn_gate\.weight has shape \[32, 32\], expected \[32, 64\]$" \
  "$TOK" generate -m "$T/ffn.gguf" "x"
patch_u32 "$G" "$T/heads.gguf" llama.attention.head_count 3
expect_error 1 "inconsistent attention shape: dim 32, 3 heads" "$TOK" generate -m "$T/heads.gguf" "x"
patch_u32 "$G" "$T/layers.gguf" llama.block_count 4000000000
expect_error 1 "^tok: error: $T/layers.gguf: tensor blk\.1\.attn_norm\.weight is missing$" \
  "$TOK" generate -m "$T/layers.gguf" "x"
LC_ALL=C sed 's/general\.architecture\(.\{12\}\)llama/general.architecture\1gpt-j/' "$G" >"$T/arch.gguf" 2>/dev/null
expect_error 1 "architecture 'gpt-j' is not supported \(tok runs llama, smollm3, qwen2, qwen3, gemma3, phi3\)" "$TOK" generate -m "$T/arch.gguf" "x"
expect_error 1 "^tok: error: $T: is a directory" "$TOK" generate -m "$T" "x"
echo ok
