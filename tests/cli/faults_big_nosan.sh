# Resource behaviour on large inputs (not under sanitizers: timing and memory).
#  - a 100 MB single line (no newline at all) encodes and counts in seconds;
#  - a long run of one letter (one giant pre-tokenizer piece) stays bounded;
#  - encoding streams: peak memory far below "ids of the whole file".
source "$(dirname "$0")/lib.sh"
limit=${TOK_BIG_SECONDS:-60}
yes 'Tokenizers split text into pieces, then merge bytes; naïve café 12345 !' | tr -d '\n' |
  head -c 100000000 >"$T/line"
expect_eq "input is one line" 0 "$(wc -l <"$T/line" | tr -d ' ')"

start=$(date +%s)
/usr/bin/time -f '%M' -o "$T/rss" timeout "$limit" "$TOK" count -q "$T/line" >"$T/n" ||
  fail "count of a 100 MB line failed or took over ${limit}s"
/usr/bin/time -f '%M' -o "$T/rss2" timeout "$limit" "$TOK" encode "$T/line" >"$T/ids" ||
  fail "encode of a 100 MB line failed or took over ${limit}s"
echo "100 MB line: count+encode in $(( $(date +%s) - start ))s; peak RSS count $(( $(cat "$T/rss") / 1024 )) MB, encode $(( $(cat "$T/rss2") / 1024 )) MB"
expect_eq "count == number of ids" "$(cat "$T/n")" "$(wc -w <"$T/ids" | tr -d ' ')"
expect_eq "count --threads 100000 (clamped to the chunks)" "$(cat "$T/n")" \
  "$(timeout "$limit" "$TOK" count -q --threads 100000 "$T/line")"
# The file is mapped (100 MB); ids are written as they are made, not held.
[ "$(cat "$T/rss2")" -lt $((400 * 1024)) ] || fail "encode of a 100 MB line peaked at $(cat "$T/rss2") KB"

# One 2 MB piece (a run of one letter): the heap merge path, bounded time.
head -c 2000000 /dev/zero | tr '\0' a >"$T/run"
timeout "$limit" "$TOK" encode "$T/run" >"$T/ids" || fail "encode of a 2 MB one-letter run failed or timed out"
"$TOK" decode <"$T/ids" | cmp -s - "$T/run" || fail "2 MB run does not round-trip"
exit 0
