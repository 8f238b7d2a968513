#!/usr/bin/env bash
# tok count DIR with 1, 2 and 3 threads: each worker reuses one encoder scratch
# and read buffer across files, which must never change a count: every
# file's count equals a separate `tok count -q FILE`, whatever the threads.
source "$(dirname "$0")/lib.sh"
R="$T/tree"
mkdir -p "$R/a" "$R/b/c"
words=(the Hello "  " "\n" 日本語のテキスト "don't" 12345 "é" "<|endoftext|>" "\t\t" "x=y;" "😀")
for i in $(seq 1 60); do
  s=""
  for k in $(seq 1 $((i % 17 + 1))); do s+="${words[$(((i * 7 + k * 3) % 12))]} "; done
  printf "%b" "$s" >"$R/$([ $((i % 3)) == 0 ] && echo a || echo b/c)/f$i.txt"
done
printf 'caf\xe9 \xff\xfe ok\n' >"$R/a/latin1.txt"   # invalid UTF-8 is counted as bytes
: >"$R/b/empty.txt"
# One file above the 4 MiB large-file threshold: counted after the small
# ones, with all threads inside it.
for i in $(seq 1 2200); do printf 'line %d of a long file, with words and 123 numbers\n' $i; done >"$R/b/seed"
for i in $(seq 1 48); do cat "$R/b/seed"; done >"$R/b/large.txt"; rm "$R/b/seed"
expected=""
total=0
for f in $(cd "$R" && find . -type f | LC_ALL=C sort); do
  n=$("$TOK" count -q "$R/$f") || fail "count $f"
  total=$((total + n))
done
for t in 1 2 3; do
  "$TOK" count --json --threads $t "$R" >"$T/j$t" 2>"$T/err" || fail "threads $t: $(cat "$T/err")"
  got=$(node -e 'const j=JSON.parse(require("fs").readFileSync(process.argv[1]));
    console.log(j.files.length + " " + j.total.tokens)' "$T/j$t")
  expect_eq "--threads $t: files and total" "63 $total" "$got"
done
cmp -s "$T/j1" "$T/j2" || fail "threads 1 vs 2: per-file counts differ"
cmp -s "$T/j1" "$T/j3" || fail "threads 1 vs 3: per-file counts differ"
# Per file, against a fresh process.
node -e 'const j=JSON.parse(require("fs").readFileSync(process.argv[1]));
  for (const f of j.files) console.log(f.path + "\t" + f.tokens)' "$T/j2" >"$T/per"
while IFS=$'\t' read -r p n; do
  expect_eq "count of $p" "$("$TOK" count -q "$p")" "$n"
done <"$T/per"
