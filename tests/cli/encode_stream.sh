# tok encode on a stream (stdin pipe, named pipe, device): encoded as it
# arrives, with exactly the ids, offsets and errors of the same bytes as a file.
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
# As a file nothing is printed (the whole text is checked first).
expect_error 1 "at byte $at;" "$TOK" encode "$T/special"
expect_eq "refused special, file: stdout" "" "$(cat "$T/out")"
echo "encode_stream: ok"
