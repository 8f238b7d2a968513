#!/usr/bin/env bash
# One token count per vocabulary and text, whichever command asks (encode,
# count with 1 and 2 threads and on a stream, compare with and without word
# metrics, show, chunk, truncate), and spans that index the input, for every
# vocabulary tok ships and a `tok train` output.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/agreement.inc"
root="$(cd "$(dirname "$0")/../.." && pwd)"
mkdir -p "$T/agree"
make_agreement_text "$T/agree/mix.txt"
"$TOK" train -q --vocab-size 600 -o "$T/trained" "$T/agree/mix.txt" "$root/vocab/samples/en.txt" ||
  fail "tok train"
for v in r50k_base p50k_base cl100k_base o200k_base "$root/vocab/qwen3" "$root/vocab/deepseek-v3" \
  "$root/vocab/tok-tiny-bible.gguf" "$T/trained.tiktoken"; do
  check_agreement "$v"
done
check_agreement "$root/vocab/mistral"
# The symptoms this test was written for (vocab/mistral): offsets of the
# user's bytes, not of the rewritten "▁The▁cat".
expect_eq "mistral offsets" "$(printf '0\n3')" "$(printf 'The cat' | "$TOK" encode --tokens -e "$root/vocab/mistral" | cut -f2)"
echo ok
