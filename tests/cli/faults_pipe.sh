# A reader that goes away (head) ends tok quietly with status 0; a full or
# closed stdout is a one-line error with status 1.
source "$(dirname "$0")/lib.sh"
yes 'the quick brown fox jumps over the lazy dog' | head -c 20000000 >"$T/big"

"$TOK" encode "$T/big" 2>"$T/err1" | head -c 10 >/dev/null
st=("${PIPESTATUS[@]}")
expect_eq "encode | head -c 10: tok status" 0 "${st[0]}"
expect_eq "encode | head -c 10: stderr" "" "$(cat "$T/err1")"

"$TOK" encode --tokens "$T/big" 2>"$T/err1" | head -n 1 >/dev/null
st=("${PIPESTATUS[@]}")
expect_eq "encode --tokens | head -1: tok status" 0 "${st[0]}"
expect_eq "encode --tokens | head -1: stderr" "" "$(cat "$T/err1")"

yes '1000 2000 3000 4000' | head -n 500000 >"$T/ids"
"$TOK" decode <"$T/ids" 2>"$T/err1" | head -c 1 >/dev/null
st=("${PIPESTATUS[@]}")
expect_eq "decode | head -c 1: tok status" 0 "${st[0]}"
expect_eq "decode | head -c 1: stderr" "" "$(cat "$T/err1")"

"$TOK" count "$T/big" "$T/big" 2>"$T/err1" | head -c 1 >/dev/null
st=("${PIPESTATUS[@]}")
expect_eq "count | head -c 1: tok status" 0 "${st[0]}"

# tok generate flushes each token: head -1 closes the pipe after the first
# line (the echoed prompt ends with one) and generation ends quietly at the
# next token, long before its 2000 tokens or the context are used up.
"$TOK" generate --echo --seed 1 -n 2000 "In the beginning God created the heaven and the earth.
" 2>"$T/err1" | head -n 1 >"$T/line"
st=("${PIPESTATUS[@]}")
expect_eq "generate | head -1: tok status" 0 "${st[0]}"
expect_eq "generate | head -1: stderr" "" "$(cat "$T/err1")"
[ -s "$T/line" ] || fail "generate | head -1: no line"

# A full disk on stdout, and a closed stdout.
expect_error 1 "^tok: error: cannot write output: No space left on device$" sh -c '"$0" encode "$1" >/dev/full' "$TOK" "$T/big"
expect_error 1 "^tok: error: cannot write output: Bad file descriptor$" sh -c '"$0" encode "$1" >&-' "$TOK" "$T/big"

# Short outputs sit in stdout's buffer until exit: the final flush and close
# are checked too, for every command (the number must never be lost silently).
printf 'hello world\n' >"$T/small"
for cmd in "count -q" "count" "count --json" "encode" "show --color never"; do
  expect_error 1 "^tok: error: cannot write output: No space left on device$" \
    sh -c '"$0" $1 "$2" >/dev/full' "$TOK" "$cmd" "$T/small"
  expect_error 1 "^tok: error: cannot write output: Bad file descriptor$" \
    sh -c '"$0" $1 "$2" >&-' "$TOK" "$cmd" "$T/small"
done
expect_error 1 "^tok: error: cannot write output: No space left on device$" sh -c '"$0" decode 9906 >/dev/full' "$TOK"
expect_error 1 "^tok: error: cannot write output: No space left on device$" sh -c '"$0" models >/dev/full' "$TOK"
expect_error 1 "^tok: error: cannot write output: Bad file descriptor$" sh -c '"$0" models >&-' "$TOK"
# A command that prints nothing is not hurt by a closed stdout.
expect_status 0 sh -c '"$0" show --html "$1/p.html" "$2" >&-' "$TOK" "$T" "$T/small"
# ...and a reader that leaves early is still no error.
"$TOK" count -q "$T/small" 2>"$T/err1" | head -c 0
expect_eq "count -q | head -c 0: stderr" "" "$(cat "$T/err1")"
exit 0
