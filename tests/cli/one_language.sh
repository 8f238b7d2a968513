#!/usr/bin/env bash
# One input rule and one flag vocabulary across subcommands: positional
# arguments are files, -t/--text is text; usage errors name the command's
# help; mistyped flags get suggestions; llama-cli's generate spellings work.
source "$(dirname "$0")/lib.sh"
cd "$T"

# A positional argument is a file: a missing one is one error line naming
# -t, and no empty table is printed.
expect_error 1 "^tok: error: hello world: no such file \(to use it as text, pass -t 'hello world'\)$" \
  "$TOK" count 'hello world'
expect_eq "no header for nothing counted" "" "$(cat "$T/out")"
for cmd in "encode" "truncate -n 3" "chunk -n 3"; do
  expect_error 1 "hello world: no such file \(to use it as text" "$TOK" $cmd 'hello world'
done

# -t TEXT: literal text in every tokenizing command.
expect_eq "count -t" 2 "$("$TOK" count -q -t 'hello world')"
"$TOK" count -t 'hello world' -t 'x' >"$T/out"
grep -qE "^ +2 +11  <text 1>$" "$T/out" || fail "count -t rows: $(cat "$T/out")"
grep -qE "^ +3 +12  total$" "$T/out" || fail "count -t total: $(cat "$T/out")"
printf 'one two' >notes.txt
expect_eq "count file and -t" 4 "$("$TOK" count -q notes.txt -t 'hello world')"
expect_eq "encode -t" "24912 2375" "$("$TOK" encode -t 'hello world')"
expect_eq "encode: one line per input" "$(printf '%s\n%s' "$("$TOK" encode notes.txt)" "24912 2375")" \
  "$("$TOK" encode notes.txt -t 'hello world')"
expect_eq "truncate -t" "hello" "$("$TOK" truncate -n 1 -t 'hello world')"
expect_error 2 "truncate takes one input.*see tok truncate --help" "$TOK" truncate -n 1 notes.txt -t x
"$TOK" chunk -n 50 -t 'hello world' >"$T/out"
expect_eq "chunk -t" '{"path":"<text>","index":0,"start":0,"end":11,"tokens":2,"text":"hello world"}' "$(cat "$T/out")"

# show: an existing file is shown as the file; a bare argument naming no
# file is still shown as text, with a warning saying so.
expect_eq "show FILE" "one│·two" "$("$TOK" show --color never notes.txt 2>"$T/err" | head -1)"
expect_eq "show FILE: no warning" "" "$(cat "$T/err")"
"$TOK" show --color never 'hello world' >"$T/out" 2>"$T/err" || fail "show text"
expect_eq "show text" "hello│·world" "$(head -1 "$T/out")"
expect_eq "show text warns" "tok: warning: no file named 'hello world': showing the argument as text (-t TEXT says so)" "$(cat "$T/err")"
expect_eq "show -t: no warning" "" "$("$TOK" show --color never -t 'hello world' 2>&1 >/dev/null)"

# chunk: directories and several files, as tok count walks them; every line
# names its input, its byte range and its token count.
mkdir -p tree/sub
printf 'alpha beta gamma\n' >tree/a.txt
printf 'delta\n' >tree/sub/b.txt
printf 'bin\0ary' >tree/blob.bin
printf 'ignored\n' >tree/skip.log
printf '*.log\n' >tree/.gitignore
"$TOK" chunk -n 2 --no-text tree notes.txt -t 'hi there' >"$T/out" 2>"$T/err" || fail "chunk tree: $(cat "$T/err")"
got=$(node -e 'const ls=require("fs").readFileSync(process.argv[1],"utf8").trim().split("\n").map(JSON.parse);
  const paths=[...new Set(ls.map(l=>l.path))].join(" ");
  for (const l of ls) if (!(l.end>l.start) || !(l.tokens>=1 && l.tokens<=2) || "text" in l) throw JSON.stringify(l);
  console.log(paths)' "$T/out") || fail "chunk lines: $(cat "$T/out")"
expect_eq "chunk paths, in walk order" "tree/.gitignore tree/a.txt tree/sub/b.txt notes.txt <text>" "$got"
expect_eq "chunk: binary summary" "tok: warning: skipped 1 binary file; --verbose lists them" "$(cat "$T/err")"
"$TOK" chunk -n 2 --verbose tree >/dev/null 2>"$T/err"
expect_eq "chunk --verbose" "tok: warning: tree/blob.bin: skipped (binary file)" "$(cat "$T/err")"
expect_eq "chunk --include" '"tree/sub/b.txt"' "$("$TOK" chunk -n 9 --include 'b.*' tree | grep -o '"tree[^"]*"' | sort -u)"
expect_status 1 "$TOK" chunk -n 9 missing.txt notes.txt
grep -q '"path":"notes.txt"' "$T/out" || fail "chunk goes on after a missing input"

# Flags with one meaning: generate's -m is a GGUF path, count's a catalog model.
expect_error 1 "^tok: error: gpt-4o is a catalog model \(prices\), not a GGUF file" "$TOK" generate -m gpt-4o hi
expect_error 1 "^tok: error: gpt-4o is a catalog model \(prices\), not a GGUF file" "$TOK" score -m gpt-4o notes.txt
# train: --special-token (the old --special still works).
printf 'the cat sat on the mat\n%.0s' $(seq 50) >corpus.txt
"$TOK" train corpus.txt --vocab-size 270 --special-token '<|end|>' -o v1 -q || fail "--special-token"
"$TOK" train corpus.txt --vocab-size 270 --special '<|end|>' -o v2 -q || fail "--special alias"
cmp -s v1.tiktoken v2.tiktoken || fail "--special and --special-token differ"
expect_eq "special token id" 1 "$("$TOK" encode -e v1.tiktoken --special allow -t '<|end|>' | wc -w)"

# Usage errors name the command's help; unknown flags get suggestions.
expect_error 2 "^tok: error: unknown option --temperatur for tok generate \(did you mean --temperature.*\) \(see tok generate --help\)$" \
  "$TOK" generate --temperatur 0.5 hi
expect_error 2 "^tok: error: unknown option --bogus for tok train \(see tok train --help\)$" "$TOK" train --bogus
expect_error 2 "unknown option --no-ignor for tok count \(did you mean --no-ignore\?\)" "$TOK" count --no-ignor .
expect_error 2 "\(see tok chunk --help\)$" "$TOK" chunk notes.txt
expect_error 2 "-q prints one number.*\(see tok count --help\)$" "$TOK" count -q -m gpt-4o -m gpt-4 notes.txt
expect_error 2 "\(see tok vocab info --help\)$" "$TOK" vocab info --bogus o200k_base
expect_error 2 "unknown command" "$TOK" cuont

# generate as llama-cli users type it: -p PROMPT, -c CTX, --temp T.
want=$("$TOK" generate --ctx 64 --temperature 0 --seed 1 -n 4 'In the beginning' 2>/dev/null)
got=$("$TOK" generate -c 64 --temp 0 --seed 1 -n 4 -p 'In the beginning' 2>/dev/null)
[ -n "$want" ] || fail "generate printed nothing"
expect_eq "generate -p -c --temp" "$want" "$got"
expect_error 2 "excludes" "$TOK" generate -p a b

# --batch FILE is a JSONL file of requests in count and generate alike: an
# OpenAI Batch API line runs in generate as its body would, custom_id kept.
printf '{"custom_id":"r1","method":"POST","url":"/v1/completions","body":{"model":"x","prompt":"In the beginning","max_tokens":4,"seed":1}}\n{"prompt":"In the beginning","max_tokens":4,"seed":1}\n' >batch.jsonl
"$TOK" generate --batch batch.jsonl >"$T/out" 2>/dev/null || fail "generate --batch with an OpenAI line"
node -e 'const [a,b]=require("fs").readFileSync(process.argv[1],"utf8").trim().split("\n").map(JSON.parse);
  if (a.custom_id!=="r1" || "custom_id" in b || a.text!==b.text || a.tokens!==4) throw JSON.stringify([a,b])' "$T/out" \
  || fail "envelope: $(cat "$T/out")"
printf '{"custom_id":"c","body":{"messages":[{"role":"user","content":"hi"}]}}\n' >chat.jsonl
expect_error 1 'chat.jsonl:1: a chat request \("messages"\)' "$TOK" generate --batch chat.jsonl
echo ok
