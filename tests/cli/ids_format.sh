#!/usr/bin/env bash
# An output file's name never contradicts its contents: `tok encode --jsonl
# -o` takes the id format from a known suffix (.u16, .u32, .npy, .txt),
# refuses a suffix that contradicts --format (exit 2, no file written), and
# asks for --format with a .bin name.
source "$(dirname "$0")/lib.sh"
J="$T/d.jsonl"
printf '{"text":"Hello world"}\n{"text":"The quick brown fox."}\n' >"$J"
E=(encode -e gpt2 --jsonl text --eot)
"$TOK" "${E[@]}" --format u32 -o "$T/ref.u32" "$J" || fail "u32"
"$TOK" "${E[@]}" --format u16 -o "$T/ref.bin" "$J" || fail "u16 into .bin"
ids=$(od -An -v -tu4 "$T/ref.u32" | xargs)
# The suffix alone chooses the format.
"$TOK" "${E[@]}" -o "$T/x.u16" "$J" || fail "x.u16"
expect_eq ".u16 holds u16 ids" "$ids" "$(od -An -v -tu2 "$T/x.u16" | xargs)"
cmp -s "$T/x.u16" "$T/ref.bin" || fail ".u16 differs from --format u16"
"$TOK" "${E[@]}" -o "$T/x.U32" "$J" || fail "x.U32"
cmp -s "$T/x.U32" "$T/ref.u32" || fail ".U32 is not u32"
"$TOK" "${E[@]}" -o "$T/x.txt" "$J" || fail "x.txt"
expect_eq ".txt holds text" "$("$TOK" "${E[@]}" "$J")" "$(cat "$T/x.txt")"
"$TOK" "${E[@]}" -o "$T/x.npy" "$J" || fail "x.npy"
expect_eq ".npy magic" "NUMPY" "$(head -c 6 "$T/x.npy" | tail -c 5)"
# --format agreeing with the suffix, or with a name that says nothing.
expect_status 0 "$TOK" "${E[@]}" --format u16 -o "$T/y.u16" "$J"
"$TOK" "${E[@]}" -o "$T/plain" "$J" || fail "no suffix"
cmp -s "$T/plain" "$T/ref.u32" || fail "a name without a suffix is not u32"
# Contradictions and .bin without --format: usage errors, nothing written.
expect_error 2 "x2.u16 names a u16 file, but --format is u32" "$TOK" "${E[@]}" --format u32 -o "$T/x2.u16" "$J"
expect_error 2 "names a npy file, but --format is u32" "$TOK" "${E[@]}" --format u32 -o "$T/x2.npy" "$J"
expect_error 2 "names a u32 file, but --format is npy" "$TOK" "${E[@]}" --format npy -o "$T/x2.u32" "$J"
expect_error 2 "names a text file, but --format is u16" "$TOK" "${E[@]}" --format u16 -o "$T/x2.txt" "$J"
expect_error 2 "x2.bin: a .bin name does not say how ids are stored; pass --format u16 or --format u32" \
  "$TOK" "${E[@]}" -o "$T/x2.bin" "$J"
for f in x2.u16 x2.npy x2.u32 x2.txt x2.bin; do [ -e "$T/$f" ] && fail "$f written"; done
echo ok
