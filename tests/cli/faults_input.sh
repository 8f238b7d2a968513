# Hostile inputs to encode/decode/count: every failure is one line
# "tok: error: ..." naming the file and the problem, exit 1; nothing crashes.
source "$(dirname "$0")/lib.sh"

# Missing file, directory, path through a regular file.
expect_error 1 "^tok: error: $T/missing: no such file$" "$TOK" encode "$T/missing"
expect_error 1 "^tok: error: $T/missing: no such file$" "$TOK" count "$T/missing"
expect_error 1 "^tok: error: $T: is a directory, expected a file$" "$TOK" encode "$T"
# count walks directories (see count_walk.sh); an empty one counts zero tokens
mkdir -p "$T/emptydir"
expect_status 0 "$TOK" count -q "$T/emptydir"
expect_eq "count of an empty directory" "0" "$(cat "$T/out")"
echo x >"$T/plain"
expect_error 1 "^tok: error: $T/plain/sub: cannot open: Not a directory$" "$TOK" encode "$T/plain/sub"

# Unreadable file. Root reads mode-000 files, so as root the check runs tok
# as nobody (setpriv drops every capability with the uid).
echo secret >"$T/locked"; chmod 000 "$T/locked"; chmod 755 "$T"
as_user=()
if [ "$(id -u)" == 0 ]; then
  command -v setpriv >/dev/null || fail "setpriv (util-linux) is needed to test unreadable files as root"
  as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fi
expect_error 1 "^tok: error: $T/locked: permission denied$" "${as_user[@]}" "$TOK" encode "$T/locked"
expect_error 1 "^tok: error: $T/locked: permission denied$" "${as_user[@]}" "$TOK" count "$T/locked"

# count keeps going after a bad file, reports it, and exits 1.
printf 'hello world' >"$T/good"
expect_status 1 "$TOK" count -q "$T/good" "$T/missing"
expect_eq "count total despite a missing file" "2" "$(cat "$T/out")"
grep -q "^tok: error: $T/missing: no such file$" "$T/err" || fail "count: missing-file error not reported"

# Empty input: an empty line of ids, zero tokens, nothing decoded.
: >"$T/empty"
expect_status 0 "$TOK" encode "$T/empty"
expect_eq "encode empty" "" "$(cat "$T/out")"
expect_status 0 "$TOK" encode --json "$T/empty"
expect_eq "encode --json empty" "[]" "$(cat "$T/out")"
expect_eq "count empty" "0" "$("$TOK" count -q </dev/null)"
expect_eq "decode empty" "" "$("$TOK" decode </dev/null)"

# Invalid UTF-8 and binary files round-trip byte for byte, on every encoding.
printf '\xff\xfe\xc3\x28 ok \xed\xa0\x80\xf4\x90\x80\x80\xc0\xaf\xe2\x82 end\xf0' >"$T/invalid"
head -c 300000 "$TOK" >"$T/binary"
head -c 200000 /dev/urandom >"$T/random"
for enc in o200k_base cl100k_base p50k_base r50k_base; do
  for f in invalid binary random; do
    "$TOK" encode -e $enc --special text "$T/$f" >"$T/ids" || fail "encode $f ($enc) failed"
    "$TOK" decode -e $enc <"$T/ids" >"$T/back" || fail "decode $f ($enc) failed"
    cmp -s "$T/$f" "$T/back" || fail "$f does not round-trip with $enc"
    n=$("$TOK" count -q -e $enc "$T/$f")
    expect_eq "count == number of ids ($f, $enc)" "$(wc -w <"$T/ids" | tr -d ' ')" "$n"
  done
done

# Special-token text: refused by default (naming the token, the byte and the
# flags), allowed with --special allow, ordinary text with --special text.
printf 'hi <|endoftext|> there' >"$T/special"
expect_error 1 "^tok: error: $T/special: the text contains the special token <\|endoftext\|> at byte 3; pass --special allow .* or --special text" \
  "$TOK" encode "$T/special"
expect_error 1 "^tok: error: <stdin>: the text contains the special token <\|endoftext\|>" \
  "$TOK" encode - <"$T/special"
expect_status 0 "$TOK" encode --special allow "$T/special"
grep -qw 199999 "$T/out" || fail "--special allow did not give <|endoftext|> = 199999"
expect_status 0 "$TOK" encode --special text "$T/special"
grep -qw 199999 "$T/out" && fail "--special text gave the special id"
expect_status 0 "$TOK" count "$T/special"  # count's default is text
expect_error 1 "special token <\|endoftext\|>" "$TOK" count --special error "$T/special"

# Bad decode input.
expect_error 1 "^tok: error: unknown token id 4000000000 \(the vocabulary o200k_base has ids 0\.\.[0-9]+\)$" \
  "$TOK" decode 4000000000
expect_error 1 "^tok: error: argument: '99999999999' is not a token id" "$TOK" decode 99999999999
expect_error 1 "^tok: error: argument: 'abc' is not a token id \(expected non-negative integers\)$" \
  "$TOK" decode abc
expect_error 1 "'-5' is not a token id" "$TOK" decode -- -5
expect_error 1 "^tok: error: <stdin>: missing '\]'" "$TOK" decode <<<'[1, 2'
expect_error 1 "^tok: error: <stdin>: unexpected text after '\]'" "$TOK" decode <<<'[1] 2'
expect_error 1 "^tok: error: <stdin>: unexpected character '\.' at byte 3$" "$TOK" decode <<<'1 1.5'
printf '12\x1b[31m' >"$T/esc_ids"
expect_error 1 '\\x1b' "$TOK" decode <"$T/esc_ids"   # control bytes are escaped, never printed raw
expect_error 1 "is not a token id" "$TOK" decode <"$T/binary"
exit 0
