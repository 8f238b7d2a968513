#!/usr/bin/env bash
# tok count DIR: recursive walk, .gitignore rules, binary files skipped.
source "$(dirname "$0")/lib.sh"
R="$T/repo"
mkdir -p "$R/.git" "$R/src/gen" "$R/docs" "$R/build" "$R/logs"
echo "one two" >"$R/a.txt"
echo "x" >"$R/.git/config"
printf 'build/\n*.log\n!keep.log\n/docs/*.tmp\n' >"$R/.gitignore"
echo "gen" >"$R/src/gen/out.c"
printf '*\n!.gitignore\n!wanted.c\n' >"$R/src/gen/.gitignore"
echo "wanted" >"$R/src/gen/wanted.c"
echo "main" >"$R/src/main.c"
echo "b" >"$R/build/b.txt"
echo "l" >"$R/logs/x.log"
echo "k" >"$R/logs/keep.log"
echo "t" >"$R/docs/a.tmp"
echo "t" >"$R/docs/a.md"
printf 'bin\0ary' >"$R/blob.bin"
"$TOK" count --json "$R" >"$T/j" 2>"$T/err" || fail "walk: $(cat "$T/err")"
got=$(node -e 'const j=JSON.parse(require("fs").readFileSync(process.argv[1]));
  console.log(j.files.map(f=>f.path.slice(process.argv[2].length+1)).join(" ")+" | "+(j.skipped||[]).length)' "$T/j" "$R")
expect_eq "walked files" ".gitignore a.txt docs/a.md logs/keep.log src/gen/.gitignore src/gen/wanted.c src/main.c | 1" "$got"
grep -q "blob.bin: skipped (binary file)" "$T/err" || fail "binary not reported: $(cat "$T/err")"
n=$("$TOK" count --json --no-ignore "$R" 2>/dev/null | node -e 'console.log(JSON.parse(require("fs").readFileSync(0)).files.length)')
expect_eq "--no-ignore (12 files, one binary)" 11 "$n"
got=$("$TOK" count --json --include '*.c' --exclude 'main.*' "$R" | node -e 'console.log(JSON.parse(require("fs").readFileSync(0)).files.map(f=>f.path.split("/").pop()).join(" "))')
expect_eq "include/exclude" "wanted.c" "$got"
# A named binary file is counted: the user asked for it.
expect_status 0 "$TOK" count "$R/blob.bin"
# --top shows the largest inputs.
"$TOK" count -m gpt-4o --top 2 "$R" >"$T/out" 2>/dev/null
grep -q "more inputs not shown" "$T/out" || fail "--top: $(cat "$T/out")"
echo ok
