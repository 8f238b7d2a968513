# Truncated and corrupted .tiktoken vocabularies: the error names the file
# and, where there is one, the line.
source "$(dirname "$0")/lib.sh"
V="$TOK_ROOT/vocab/r50k_base.tiktoken"
enc() { "$TOK" encode -e "$1" --pattern gpt2 "$T/text"; }
printf 'hello world' >"$T/text"

# A copy under another name is recognized by its checksum; a modified one
# (not a built-in) needs --pattern.
cp "$V" "$T/same.tiktoken"
expect_status 0 "$TOK" encode -e "$T/same.tiktoken" "$T/text"
expect_eq "a copy encodes like r50k" "$("$TOK" encode -e r50k_base "$T/text")" "$(cat "$T/out")"
head -n -1 "$V" >"$T/copy.tiktoken"
expect_error 1 "unknown .tiktoken file .* pass --pattern" "$TOK" encode -e "$T/copy.tiktoken" "$T/text"
expect_status 0 enc "$T/copy.tiktoken"
expect_eq "a modified copy encodes like r50k" "$("$TOK" encode -e r50k_base "$T/text")" "$(cat "$T/out")"

# Truncated mid-line: the last line has no rank.
head -c 100000 "$V" >"$T/trunc.tiktoken"
last=$(wc -l <"$T/trunc.tiktoken"); last=$((last + 1))
expect_error 1 "^tok: error: $T/trunc.tiktoken:$last: (expected 'BASE64 RANK', found no space|bad rank|bad base64)" enc "$T/trunc.tiktoken"

# Truncated at a line end: fine as a file, but bytes are missing.
head -n 100 "$V" >"$T/short.tiktoken"
expect_error 1 "^tok: error: $T/short.tiktoken: byte 0x.. has no token; a byte-level vocabulary needs all 256$" \
  enc "$T/short.tiktoken"

# Bad base64 on line 3.
{ head -n 2 "$V"; echo 'I*== 2'; tail -n +4 "$V"; } >"$T/b64.tiktoken"
expect_error 1 "^tok: error: $T/b64.tiktoken:3: bad base64 token 'I\*=='$" enc "$T/b64.tiktoken"

# Duplicate rank on line 5, duplicate bytes, a gap, a non-numeric rank.
{ head -n 4 "$V"; echo 'IQ== 0'; } >"$T/dup.tiktoken"
expect_error 1 "^tok: error: $T/dup.tiktoken:5: duplicate rank 0 \(first on line 1\)$" enc "$T/dup.tiktoken"
{ cat "$V"; echo 'IQ== 50256'; } >"$T/dupbytes.tiktoken"
expect_error 1 "duplicate token: ids 0 and 50256 have the same bytes" enc "$T/dupbytes.tiktoken"
{ head -n 10 "$V"; tail -n +12 "$V"; } >"$T/gap.tiktoken"
expect_error 1 "^tok: error: $T/gap.tiktoken:11: rank 10 is missing \(ranks must run 0\.\.[0-9]+ without gaps\)$" \
  enc "$T/gap.tiktoken"
printf 'IQ== 0\nIg== x1\n' >"$T/rank.tiktoken"
expect_error 1 "^tok: error: $T/rank.tiktoken:2: bad rank 'x1'$" enc "$T/rank.tiktoken"
printf 'IQ== 0\nIg== -1\n' >"$T/neg.tiktoken"
expect_error 1 ":2: bad rank '-1'$" enc "$T/neg.tiktoken"

# An absurd rank in a tiny file must fail at once, not allocate for it; so
# must many smaller jumps (20000 lines each 4000 ranks further).
printf 'IQ== 0\nIg== 2000000000\n' >"$T/huge.tiktoken"
expect_error 1 "^tok: error: $T/huge.tiktoken:2: rank 2000000000 jumps far past the 1 ranks read so far$" \
  enc "$T/huge.tiktoken"
awk 'BEGIN { for (i = 0; i < 20000; i++) print "IQ== " i * 4000 }' >"$T/jumps.tiktoken"
/usr/bin/time -f %M -o "$T/rss" "$TOK" encode -e "$T/jumps.tiktoken" --pattern gpt2 "$T/text" 2>"$T/err"
grep -q "^tok: error: $T/jumps.tiktoken:[0-9]*: rank [0-9]* but the file has only 20001 lines$" "$T/err" ||
  fail "many rank jumps: $(cat "$T/err")"
rss=$(tail -n 1 "$T/rss")  # time -f %M writes "Command exited ..." first
[ "$rss" -lt 200000 ] || fail "many rank jumps allocated $rss KB"
printf 'IQ== 99999999999999999999999\n' >"$T/overflow.tiktoken"
expect_error 1 ":1: bad rank '99999999999999999999999'$" enc "$T/overflow.tiktoken"

# A 1 MB line of garbage: the message quotes only the start of it.
{ head -c 1000001 /dev/zero | tr '\0' A; echo ' 0'; } >"$T/longline.tiktoken"
expect_error 1 ":1: bad base64 token 'A{40}\.\.\.'$" enc "$T/longline.tiktoken"

# Empty file, binary garbage, a directory named .tiktoken.
: >"$T/empty.tiktoken"
expect_error 1 "^tok: error: $T/empty.tiktoken: no tokens \(empty vocabulary file\)$" enc "$T/empty.tiktoken"
head -c 5000 /dev/urandom >"$T/garbage.tiktoken"
expect_error 1 "^tok: error: $T/garbage.tiktoken:[0-9]+: " enc "$T/garbage.tiktoken"
mkdir "$T/dir.tiktoken"
expect_error 1 "is a directory" enc "$T/dir.tiktoken"

# A sidecar with malformed JSON names its position.
cp "$T/copy.tiktoken" "$T/side.tiktoken"
printf '{"pattern": "gpt2",\n "special_tokens": {"<|x|>": }}' >"$T/side.tiktoken.json"
expect_error 1 "^tok: error: $T/side.tiktoken.json:2:30: malformed JSON: syntax error" \
  "$TOK" encode -e "$T/side.tiktoken" "$T/text"
printf '{"pattern": "gpt2", "special_tokens": {"<|x|>": 5}}' >"$T/side.tiktoken.json"
expect_error 1 "special token <\|x\|> has id 5, which is an ordinary token's rank" \
  "$TOK" encode -e "$T/side.tiktoken" "$T/text"
printf '{"pattern": "gpt2", "special_tokens": {"<|x|>": -3}}' >"$T/side.tiktoken.json"
expect_error 1 "special token <\|x\|> needs a non-negative integer id" \
  "$TOK" encode -e "$T/side.tiktoken" "$T/text"
printf '[1,2]' >"$T/side.tiktoken.json"
expect_error 1 "expected an object with a string \"pattern\"" "$TOK" encode -e "$T/side.tiktoken" "$T/text"
exit 0
