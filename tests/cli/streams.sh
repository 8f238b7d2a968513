# tok encode and tok decode on a stream (stdin pipe, named pipe, device):
# processed as it arrives, with exactly the output and errors of the same
# bytes as a file.
source "$(dirname "$0")/lib.sh"

# Endless input: `yes | tok encode | head` ends, quietly, with status 0.
# (timeout: 124 if it never ends; the status is tok's, not head's.)
timeout 60 bash -c 'yes "hello world" | "$0" encode 2>"$1" | head -c 100 >"$2"; exit ${PIPESTATUS[1]}' \
  "$TOK" "$T/err" "$T/out"
expect_eq "yes | encode | head: status" 0 $?
expect_eq "yes | encode | head: stderr" "" "$(cat "$T/err")"
expect_eq "yes | encode | head: ids" "24912 2375 198 24912" "$(cut -d' ' -f1-4 "$T/out")"
timeout 60 bash -c '"$0" encode /dev/urandom | head -c 100 >/dev/null; exit ${PIPESTATUS[0]}' "$TOK"
expect_eq "encode /dev/urandom | head: status" 0 $?

# Over several 8 MiB blocks (varied text, so the cuts between blocks fall in
# different places): the same ids and --tokens offsets as the mapped file.
root="$(cd "$(dirname "$0")/../.." && pwd)"
(cd "$root" && for f in vocab/samples/*.txt vocab/samples/code/* vocab/samples/data/*; do cat "$f"; done) >"$T/seed"
while [ "$(stat -c %s "$T/big" 2>/dev/null || echo 0)" -lt $((20 << 20)) ]; do
  cat "$T/seed" >>"$T/big"; head -c $((RANDOM % 500)) "$T/seed" >>"$T/big"
done
for e in o200k_base r50k_base; do
  want=$("$TOK" encode -e $e "$T/big" | md5sum)
  got=$(cat "$T/big" | "$TOK" encode -e $e | md5sum)
  expect_eq "$e: ids through a pipe" "$want" "$got"
done
want=$("$TOK" encode --tokens "$T/big" | md5sum)
got=$(cat "$T/big" | "$TOK" encode --tokens | md5sum)
expect_eq "--tokens through a pipe" "$want" "$got"

# count: a process substitution (a pipe by name) is counted as it arrives.
expect_eq "count <(cat big)" "$("$TOK" count -q "$T/big")" "$("$TOK" count -q <(cat "$T/big"))"
# Two vocabularies on stdin: cut where both can be; the file's counts.
# (gpt-4o is o200k_base, gpt-4 cl100k_base.)
totals='import json,sys; print([m["total"]["tokens"] for m in json.load(sys.stdin)["models"]])'
want=$("$TOK" count --json -m gpt-4o -m gpt-4 "$T/big" 2>/dev/null | python3 -c "$totals")
got=$(cat "$T/big" | "$TOK" count --json -m gpt-4o -m gpt-4 2>/dev/null | python3 -c "$totals")
expect_eq "count -m gpt-4o -m gpt-4 through a pipe" "$want" "$got"

# A named pipe is a stream too.
mkfifo "$T/fifo"
cat "$T/big" >"$T/fifo" &
got=$("$TOK" encode "$T/fifo" | md5sum)
wait
expect_eq "ids from a named pipe" "$("$TOK" encode "$T/big" | md5sum)" "$got"

# A refused special token far into the stream: the error names its byte in
# the stream; the ids before it were printed, on one line.
{ cat "$T/big"; printf 'x<|endoftext|>y'; } >"$T/special"
at=$(($(stat -c %s "$T/big") + 1))
cat "$T/special" | "$TOK" encode >"$T/out" 2>"$T/err"
expect_eq "refused special: status" 1 $?
expect_eq "refused special: one error line" 1 "$(wc -l <"$T/err")"
grep -q "^tok: error: <stdin>: the text contains the special token <|endoftext|> at byte $at;" "$T/err" ||
  fail "refused special: $(cat "$T/err")"
expect_eq "refused special: output lines" 1 "$(wc -l <"$T/out")"
cat "$T/special" | "$TOK" count --special error >/dev/null 2>"$T/err"
expect_eq "count, refused special: status" 1 $?
grep -q "^tok: error: <stdin>: the text contains the special token <|endoftext|> at byte $at;" "$T/err" ||
  fail "count, refused special: $(cat "$T/err")"
# As a file nothing is printed (the whole text is checked first).
expect_error 1 "at byte $at;" "$TOK" encode "$T/special"
expect_eq "refused special, file: stdout" "" "$(cat "$T/out")"

# decode: endless ids end with head; ids over many 1 MiB blocks (split
# anywhere, JSON too) give the file's bytes; a bad id far in names its byte.
timeout 60 bash -c 'yes "24912 2375 198" | "$0" decode 2>"$1" | head -c 100 >"$2"; exit ${PIPESTATUS[1]}' \
  "$TOK" "$T/err" "$T/out"
expect_eq "yes | decode | head: status" 0 $?
expect_eq "yes | decode | head: stderr" "" "$(cat "$T/err")"
expect_eq "yes | decode | head: bytes" "hello world" "$(head -n 1 "$T/out")"
"$TOK" encode "$T/big" >"$T/ids"
cat "$T/ids" | "$TOK" decode | cmp -s - "$T/big" || fail "decode through a pipe differs from the text"
"$TOK" encode --json "$T/big" | "$TOK" decode | cmp -s - "$T/big" || fail "decode of piped JSON differs"
"$TOK" decode <"$T/ids" | cmp -s - "$T/big" || fail "decode of a file differs"
{ head -c 3000000 "$T/ids"; printf ' 1.5'; } >"$T/bad_ids"
at=$(($(head -c 3000000 "$T/ids" | wc -c) + 2))
n=$(head -c 3000000 "$T/ids" | tr ' ' '\n' | tail -1)
cat "$T/bad_ids" | "$TOK" decode >/dev/null 2>"$T/err"
expect_eq "bad id in a pipe: status" 1 $?
grep -q "^tok: error: <stdin>: unexpected character '\.' at byte $at\$" "$T/err" ||
  fail "bad id in a pipe: $(cat "$T/err") (expected byte $at after id $n)"
expect_error 1 "unexpected character '\\.' at byte $at\$" "$TOK" decode <"$T/bad_ids"
expect_eq "bad id in a file: nothing written" "" "$(cat "$T/out")"
# A SentencePiece vocabulary (decode strips the prefix space once) reads
# all ids first, and gives the file's bytes.
printf 'hello world\nsecond line' | "$TOK" encode -e mistral >"$T/sp_ids"
expect_eq "mistral decode through a pipe" "$("$TOK" decode -e mistral <"$T/sp_ids")" \
  "$(cat "$T/sp_ids" | "$TOK" decode -e mistral)"
echo "streams: ok"
