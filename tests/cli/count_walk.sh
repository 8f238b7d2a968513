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
# Skipped binary files: one summary line; --verbose names each.
expect_eq "binary summary" "tok: warning: skipped 1 binary file; --verbose lists them" "$(cat "$T/err")"
"$TOK" count --verbose "$R" >/dev/null 2>"$T/err"
expect_eq "binary listed" "tok: warning: $R/blob.bin: skipped (binary file)" "$(cat "$T/err")"
printf 'x\0' >"$R/blob2.bin"
"$TOK" count "$R" >/dev/null 2>"$T/err"
expect_eq "binary summary, plural" "tok: warning: skipped 2 binary files; --verbose lists them" "$(cat "$T/err")"
rm "$R/blob2.bin"
n=$("$TOK" count --json --no-ignore "$R" 2>/dev/null | node -e 'console.log(JSON.parse(require("fs").readFileSync(0)).files.length)')
expect_eq "--no-ignore (12 files, one binary)" 11 "$n"
got=$("$TOK" count --json --include '*.c' --exclude 'main.*' "$R" | node -e 'console.log(JSON.parse(require("fs").readFileSync(0)).files.map(f=>f.path.split("/").pop()).join(" "))')
expect_eq "include/exclude" "wanted.c" "$got"
# A named binary file is counted: the user asked for it.
expect_status 0 "$TOK" count "$R/blob.bin"
# --top shows the largest inputs.
"$TOK" count -m gpt-4o --top 2 "$R" >"$T/out" 2>/dev/null
grep -q "more inputs not shown" "$T/out" || fail "--top: $(cat "$T/out")"
# Without -m too, and both tables put the columns in one order: tokens, bytes, path.
"$TOK" count --top 2 "$R" >"$T/out" 2>/dev/null
grep -qE "^ +\.\.\.  \(5 more inputs not shown; --top 2\)$" "$T/out" || fail "--top without -m: $(cat "$T/out")"
expect_eq "header without -m" "tokens bytes path" "$(head -1 "$T/out" | tr -s ' ' | sed 's/^ //')"
"$TOK" count -m gpt-4o -m gpt-4 "$R" >"$T/out" 2>/dev/null
expect_eq "header with -m" "gpt-4o gpt-4 bytes path" "$(head -1 "$T/out" | tr -s ' ' | sed 's/^ //')"
echo ok
