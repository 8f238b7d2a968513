#!/usr/bin/env bash
# tok encode --threads N FILE: a large file is cut at guaranteed piece
# boundaries and encoded on N threads, printed in order; the output must be
# byte for byte that of one thread, for every N, output form and vocabulary
# kind (ranked tiktoken files and a merge list), and errors behave as on one
# thread.
source "$(dirname "$0")/lib.sh"
# About 6 MiB: prose, code, CJK, digits, whitespace runs and a 300 KB run of
# spaces (a piece that no cut may split), repeated so chunks of 1 MiB meet
# every kind of text at their edges.
{
  for i in $(seq 1 400); do
    printf 'Line %d: the quick brown fox, naïve café; 日本語のテキストと中文 %d\n' $i $((i * 7919))
    printf 'def f_%d(x):\n    return x ** %d  # don'"'"'t\n\t\t\n' $i $i
    printf '😀 %s   \r\n' "$(printf '%*s' $((i % 13)) '')"
  done
} >"$T/seed"
for i in $(seq 1 40); do cat "$T/seed"; done >"$T/big.txt"
head -c 300000 /dev/zero | tr '\0' ' ' >>"$T/big.txt"
for i in $(seq 1 40); do cat "$T/seed"; done >>"$T/big.txt"
size=$(stat -c %s "$T/big.txt")
[ "$size" -gt $((4 << 20)) ] || fail "test file too small ($size bytes)"
for enc in o200k_base cl100k_base gpt2; do
  "$TOK" encode -e $enc --threads 1 "$T/big.txt" >"$T/one" || fail "$enc: one thread"
  for t in 2 3 8; do
    "$TOK" encode -e $enc --threads $t "$T/big.txt" >"$T/many" || fail "$enc: $t threads"
    cmp -s "$T/one" "$T/many" || fail "$enc: --threads $t differs from one thread"
  done
done
"$TOK" encode --json --threads 1 "$T/big.txt" >"$T/one" || fail "json, one thread"
"$TOK" encode --json --threads 3 "$T/big.txt" >"$T/many" || fail "json, 3 threads"
cmp -s "$T/one" "$T/many" || fail "--json: --threads 3 differs from one thread"
# --stats says how many threads encoded.
"$TOK" encode --stats --threads 2 "$T/big.txt" 2>"$T/stats" >/dev/null || fail "stats"
grep -q '"threads":2' "$T/stats" || fail "--stats does not report 2 threads: $(cat "$T/stats")"
# A special token deep in the file is refused before anything is printed.
cp "$T/big.txt" "$T/special.txt"
printf 'end <|endoftext|>\n' >>"$T/special.txt"
expect_error 1 "special.txt.*<\|endoftext\|>" "$TOK" encode --threads 2 "$T/special.txt"
expect_eq "nothing printed for a refused file" "" "$(cat "$T/out")"
# The same with --json (the check runs while other threads encode: not even
# the array's opening bracket may come out) and with the token at the start.
expect_error 1 "special.txt.*<\|endoftext\|>" "$TOK" encode --json --threads 3 "$T/special.txt"
expect_eq "nothing printed for a refused file (--json)" "" "$(cat "$T/out")"
{ printf '<|endoftext|>'; cat "$T/big.txt"; } >"$T/special_first.txt"
expect_error 1 "special_first.txt.*at byte 0" "$TOK" encode --threads 2 "$T/special_first.txt"
expect_eq "nothing printed for a file refused at byte 0" "" "$(cat "$T/out")"
# A reader that stops early ends the run (no hang, no error line).
"$TOK" encode --threads 2 "$T/big.txt" 2>"$T/err" | head -c 100 >/dev/null
expect_eq "stderr when stdout closes early" "" "$(cat "$T/err")"
# A BOS token (the shipped GGUF model asks for one) opens the line before
# the first chunk's ids: plain and --json alike.
gguf="$(cd "$(dirname "$0")/../.." && pwd)/vocab/tok-tiny-bible.gguf"
bos=$("$TOK" encode -e "$gguf" --add-special -t "x" | cut -d' ' -f1)
for form in "" --json; do
  "$TOK" encode -e "$gguf" --add-special $form --threads 1 "$T/big.txt" >"$T/one" || fail "gguf $form, one thread"
  "$TOK" encode -e "$gguf" --add-special $form --threads 3 --stats "$T/big.txt" >"$T/many" 2>"$T/stats" ||
    fail "gguf $form, 3 threads"
  grep -q '"threads":3' "$T/stats" || fail "gguf $form: not encoded on 3 threads: $(cat "$T/stats")"
  cmp -s "$T/one" "$T/many" || fail "gguf $form: --threads 3 differs from one thread"
  want="$bos "
  [ -z "$form" ] || want="[$bos,"
  [ "$(head -c ${#want} "$T/many")" = "$want" ] || fail "gguf $form: the BOS does not open the line"
done
# A piece longer than the encoder takes, after text that other threads
# encode: the thread that meets it throws, and the run ends with the one-line
# error of one thread, naming the file (core's pool rethrows it on the
# calling thread), on any thread count.
{ cat "$T/seed"; head -c $(((16 << 20) + 1)) /dev/zero | tr '\0' a; echo; cat "$T/seed"; } >"$T/long.txt"
for t in 1 2 3; do
  expect_error 1 "long.txt: a piece of 16777217 bytes with no pre-tokenizer boundary" \
    "$TOK" encode --threads $t "$T/long.txt"
done
