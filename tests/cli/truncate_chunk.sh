#!/usr/bin/env bash
# tok truncate and tok chunk: cuts at token boundaries within budget.
source "$(dirname "$0")/lib.sh"
printf 'The quick brown fox jumps over the lazy dog.\n\nSecond paragraph,   with  spaces.\nLast line 12345.\n' >"$T/t.txt"
total=$("$TOK" count -q "$T/t.txt")
for n in 1 5 10 20; do
  "$TOK" truncate -n $n "$T/t.txt" >"$T/p"
  c=$("$TOK" count -q "$T/p")
  [ "$c" -le $n ] || fail "prefix of $n has $c tokens"
  "$TOK" truncate -n $n --keep end -m gpt-4 "$T/t.txt" >"$T/s"
  c=$("$TOK" count -e cl100k_base -q "$T/s")
  [ "$c" -le $n ] || fail "suffix of $n has $c tokens"
done
expect_eq "prefix 5" "The quick brown fox jumps" "$("$TOK" truncate -n 5 "$T/t.txt")"
cmp -s <("$TOK" truncate -n 1000 "$T/t.txt") "$T/t.txt" || fail "a text within budget is printed whole"
"$TOK" chunk -n 12 "$T/t.txt" >"$T/c"
node -e 'const fs=require("fs"); const t=fs.readFileSync(process.argv[1]); let pos=0;
  for (const l of fs.readFileSync(process.argv[2],"utf8").trim().split("\n")) { const c=JSON.parse(l);
    if (c.start!==pos||c.tokens>12||t.slice(c.start,c.end).toString()!==c.text) throw l; pos=c.end; }
  if (pos!==t.length) throw "not tiled"' "$T/t.txt" "$T/c" || fail "chunks: $(cat "$T/c")"
expect_eq "first chunk ends at the paragraph" 46 "$(head -1 "$T/c" | node -e 'console.log(JSON.parse(require("fs").readFileSync(0)).end)')"
expect_error 1 "overlap" "$TOK" chunk -n 5 --overlap 5 "$T/t.txt"
expect_error 1 "unknown model" "$TOK" truncate -n 5 -m nope "$T/t.txt"
echo ok
