#!/usr/bin/env bash
# The command-line contract of encode, decode and count.
source "$(dirname "$0")/lib.sh"

# encode: ids separated by single spaces, then a newline; never BOS/EOS.
expect_eq "encode hello" "24912 2375" "$(printf 'hello world' | "$TOK" encode)"
expect_eq "encode cl100k" "15339 1917" "$(printf 'hello world' | "$TOK" encode -e cl100k_base)"
expect_eq "encode gpt2 alias" "31373 995" "$(printf 'hello world' | "$TOK" encode -e gpt2)"
printf 'hello world' >"$T/in.txt"
expect_eq "encode FILE" "24912 2375" "$("$TOK" encode "$T/in.txt")"
expect_eq "encode --json" "[24912,2375]" "$("$TOK" encode --json "$T/in.txt")"
expect_eq "empty input" "" "$(printf '' | "$TOK" encode)"
expect_eq "empty --json" "[]" "$(printf '' | "$TOK" encode --json)"
out=$("$TOK" encode --tokens "$T/in.txt")
expect_eq "--tokens" $'24912\t0\t"hello"\n2375\t5\t" world"' "$out"

# special tokens: refused by default (naming the token and the flag), allowed, or text
printf 'a<|endoftext|>b' >"$T/sp.txt"
expect_error 1 "<\|endoftext\|>.*--special allow" "$TOK" encode "$T/sp.txt"
expect_eq "--special allow" "64 199999 65" "$("$TOK" encode --special allow "$T/sp.txt")"
expect_eq "--allow-special" "64 199999 65" "$("$TOK" encode --allow-special "$T/sp.txt")"
expect_eq "--special text" "9" "$("$TOK" encode --special text "$T/sp.txt" | wc -w)"
expect_error 2 "special" "$TOK" encode --special bogus "$T/sp.txt"

# decode: arguments, whitespace on stdin, a JSON array; raw bytes out
expect_eq "decode args" "hello world" "$("$TOK" decode 24912 2375)"
expect_eq "decode stdin" "hello world" "$(echo "24912 2375" | "$TOK" decode)"
expect_eq "decode json" "hello world" "$(echo "[24912, 2375]" | "$TOK" decode)"
expect_eq "decode special" "<|endoftext|>" "$("$TOK" decode 199999)"
expect_error 1 "unknown token id 999999" "$TOK" decode 999999
expect_error 1 "not a token id" "$TOK" decode 12 abc

# round trip of arbitrary bytes, invalid UTF-8 included
head -c 20000 /dev/urandom >"$T/rand.bin"
"$TOK" encode "$T/rand.bin" | "$TOK" decode >"$T/back.bin" || fail "round trip failed"
cmp -s "$T/rand.bin" "$T/back.bin" || fail "random bytes did not round trip"
for e in r50k_base p50k_base cl100k_base o200k_base; do
  "$TOK" encode --special text -e $e "$TOK_ROOT/README.md" | "$TOK" decode -e $e | cmp -s - "$TOK_ROOT/README.md" ||
    fail "README does not round trip under $e"
done

# count: table, -q, --json, stdin, equals encode's length; threads never change it
n=$("$TOK" encode --special text "$TOK_ROOT/README.md" | wc -w)
expect_eq "count -q" "$n" "$("$TOK" count -q "$TOK_ROOT/README.md")"
expect_eq "count stdin" "$n" "$("$TOK" count -q <"$TOK_ROOT/README.md")"
for t in 1 2 3; do
  expect_eq "count --threads $t" "$n" "$("$TOK" count -q --threads $t "$TOK_ROOT/README.md")"
done
json=$("$TOK" count --json "$T/in.txt")
expect_eq "count --json" "{\"encoding\":\"o200k_base\",\"files\":[{\"path\":\"$T/in.txt\",\"bytes\":11,\"tokens\":2}],\"total\":{\"bytes\":11,\"tokens\":2}}" "$json"
"$TOK" count "$T/in.txt" "$T/sp.txt" >"$T/table" || fail "count table failed"
grep -qE '^ +2 +11  .*in.txt$' "$T/table" || fail "count table row: $(cat "$T/table")"
grep -qE ' total$' "$T/table" || fail "count table has no total: $(cat "$T/table")"
# count treats special strings as text by default; --special allow counts one token
expect_eq "count special as text" "9" "$("$TOK" count -q "$T/sp.txt")"
expect_eq "count --special allow" "3" "$("$TOK" count -q --special allow "$T/sp.txt")"

# errors: one line, exit 1; usage errors exit 2; missing files don't lose the others
expect_error 1 "nope.txt: no such file" "$TOK" encode "$T/nope.txt"
expect_error 1 "is a directory" "$TOK" encode "$T"
expect_error 1 "unknown encoding 'o200k_bse'; did you mean o200k_base" "$TOK" encode -e o200k_bse "$T/in.txt"
expect_error 2 "" "$TOK" encode --no-such-flag
expect_error 2 "" "$TOK"
"$TOK" count -q "$T/in.txt" "$T/nope.txt" >"$T/out" 2>"$T/err"
expect_eq "count with a missing file: status" "1" "$?"
expect_eq "count with a missing file: total" "2" "$(cat "$T/out")"

# closed stdout pipe: quiet, status 0
head -c 3000000 /dev/urandom | base64 >"$T/big.txt"
"$TOK" encode "$T/big.txt" 2>"$T/err" | head -c 10 >/dev/null
expect_eq "encode | head: status" "0" "${PIPESTATUS[0]}"
expect_eq "encode | head: stderr" "" "$(cat "$T/err")"

"$TOK" --version | grep -qE '^tok [0-9]+\.[0-9]+\.[0-9]+$' || fail "--version"
echo "encode_decode_count: ok"
