#!/usr/bin/env bash
# tok encode/count/train --jsonl: each line's field is one document; ids
# equal plain encode of each text, binary formats and the index hold the
# bytes they promise, bad lines are refused (or counted with --skip-bad),
# and any thread count gives the same output.
source "$(dirname "$0")/lib.sh"

J="$T/d.jsonl"
printf '%s\n' '{"text":"Hello world","meta":{"text":"nested one"}}' \
  '{"id":2,"text":"caf\u00e9 \"quoted\"\nnew line","meta":{"text":"two"}}' \
  '' \
  '{"text":"","meta":{"text":"three"}}' >"$J"

# Ids of each document equal tok encode of its text; a blank line is no document.
"$TOK" encode --jsonl text "$J" >"$T/ids" || fail "encode --jsonl"
{ "$TOK" encode -t 'Hello world'; "$TOK" encode -t "$(printf 'café "quoted"\nnew line')"; echo; } >"$T/want"
cmp -s "$T/want" "$T/ids" || fail "ids differ from plain encode: $(cat "$T/ids")"
expect_eq "dotted path" "$("$TOK" encode -t 'nested one')" "$("$TOK" encode --jsonl meta.text "$J" | head -1)"

# --eot: o200k's <|endoftext|> (199999) after each document, the empty one too.
"$TOK" encode --jsonl text --eot "$J" >"$T/eot"
expect_eq "eot lines" "199999" "$(sed -n 3p "$T/eot")"
expect_eq "eot first" "$("$TOK" encode -t 'Hello world') 199999" "$(head -1 "$T/eot")"
expect_eq "eot-id" "$("$TOK" encode -t 'Hello world') 7" "$("$TOK" encode --jsonl text --eot-id 7 "$J" | head -1)"
"$TOK" train "$TOK_TEST_DATA/train/sample.txt" --vocab-size 300 -o "$T/small" -q
expect_error 1 "small.*has no end-of-text token.*--eot-id" "$TOK" encode -e "$T/small.tiktoken" --jsonl text --eot "$J"

# u32: little-endian ids, the text output's ids in order.
all=$(tr '\n' ' ' <"$T/eot" | xargs)
"$TOK" encode --jsonl text --eot --format u32 -o "$T/ids.u32" "$J"
expect_eq "u32 bytes" "$all" "$(od -An -v -tu4 "$T/ids.u32" | xargs)"
expect_eq "u32 size" $(( $(echo "$all" | wc -w) * 4 )) "$(wc -c <"$T/ids.u32")"
# -o without --format: u32.
"$TOK" encode --jsonl text --eot -o "$T/dflt" "$J"
cmp -s "$T/ids.u32" "$T/dflt" || fail "-o default format is not u32"
# u16: refused for o200k (more than 65,536 ids), 2 bytes per id for gpt2.
expect_error 1 "u16: o200k_base has 200019 ids" "$TOK" encode --jsonl text --format u16 -o "$T/x.u16" "$J"
[ -e "$T/x.u16" ] && fail "refused u16 left a file"
g=$("$TOK" encode -e gpt2 --jsonl text --eot "$J" | tr '\n' ' ' | xargs)
"$TOK" encode -e gpt2 --jsonl text --eot --format u16 -o "$T/g.u16" "$J"
expect_eq "u16 bytes" "$g" "$(od -An -v -tu2 "$T/g.u16" | xargs)"

# npy: a 128-byte version 1.0 header, then the ids.
"$TOK" encode --jsonl text --eot -o "$T/ids.npy" "$J"
expect_eq "npy magic" "NUMPY" "$(head -c 6 "$T/ids.npy" | tail -c 5)"
n=$(echo "$all" | wc -w)
head -c 128 "$T/ids.npy" | grep -q "'descr': '<u4', 'fortran_order': False, 'shape': ($n,)" || fail "npy header: $(head -c 128 "$T/ids.npy")"
cmp -s <(tail -c +129 "$T/ids.npy") "$T/ids.u32" || fail "npy data differ from u32"
if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
  expect_eq "numpy load" "$all" "$(/usr/bin/python3 -c 'import numpy,sys; a=numpy.load(sys.argv[1]); print(a.dtype, *a.tolist())' "$T/ids.npy" | cut -d' ' -f2-)"
  expect_eq "numpy dtype gpt2" "uint16" "$("$TOK" encode -e gpt2 --jsonl text -o "$T/g.npy" "$J" && /usr/bin/python3 -c 'import numpy,sys; print(numpy.load(sys.argv[1]).dtype)' "$T/g.npy")"
fi
expect_error 2 "npy needs -o" "$TOK" encode --jsonl text --format npy "$J"

# --index: each document's start in tokens, then the total (u64 little-endian).
"$TOK" encode --jsonl text --eot --index "$T/idx" -o "$T/i.u32" "$J"
a=$("$TOK" encode -t 'Hello world' | wc -w); b=$("$TOK" encode -t "$(printf 'café "quoted"\nnew line')" | wc -w)
expect_eq "index" "0 $((a + 1)) $((a + b + 2)) $((a + b + 3))" "$(od -An -v -tu8 "$T/idx" | xargs)"

# Bad lines: named by file and line; --skip-bad skips and counts them.
B="$T/b.jsonl"
printf '%s\n' '{"text":"ok"}' '{"text":1}' 'not json' '{"other":"x"}' '[1]' '{"text":"fine"}' >"$B"
expect_error 1 "b.jsonl:2: field 'text' holds a number, not a string" "$TOK" encode --jsonl text "$B"
sed -n 3p "$B" >"$T/c.jsonl"
expect_error 1 "c.jsonl:1: not JSON" "$TOK" encode --jsonl text "$T/c.jsonl"
sed -n 4p "$B" >"$T/c.jsonl"
expect_error 1 "c.jsonl:1: no field 'text'" "$TOK" encode --jsonl text "$T/c.jsonl"
sed -n 5p "$B" >"$T/c.jsonl"
expect_error 1 "c.jsonl:1: not a JSON object" "$TOK" encode --jsonl text "$T/c.jsonl"
/usr/bin/env python3 -c 'print("{\"text\":" + "["*100000 + "]"*100000 + "}")' >"$T/deep.jsonl"
expect_error 1 "deep.jsonl:1: nested deeper than 64" "$TOK" encode --jsonl text "$T/deep.jsonl"
expect_error 1 "b.jsonl:2: " "$TOK" encode --jsonl text -o "$T/bad.u32" "$B"
[ -e "$T/bad.u32" ] && fail "a failed run left its output"
"$TOK" encode --jsonl text --skip-bad "$B" >"$T/out" 2>"$T/err" || fail "--skip-bad failed: $(cat "$T/err")"
expect_eq "skip-bad ids" "$("$TOK" encode -t ok; "$TOK" encode -t fine)" "$(cat "$T/out")"
grep -q "^tok: warning: skipped 4 bad lines (first: .*b.jsonl:2: " "$T/err" || fail "skip-bad report: $(cat "$T/err")"
printf '{"text":"a"}\n{"text":"<|endoftext|>"}\n' >"$T/x.jsonl"
expect_error 1 "x.jsonl:2: .*endoftext" "$TOK" encode --jsonl text --special error "$T/x.jsonl"
expect_eq "--special text" 2 "$("$TOK" encode --jsonl text --special text "$T/x.jsonl" | wc -l)"

# A NUL byte is not JSON (nlohmann's lexer took it for the end of the line
# and dropped the rest silently); in --skip-bad it is one bad line.
printf '{"text":"a"}\0{"text":"lost"}\n{"text":"b"}\n' >"$T/nul.jsonl"
expect_error 1 "nul.jsonl:1: not JSON \(byte 13: a NUL byte\)" "$TOK" encode --jsonl text "$T/nul.jsonl"
expect_error 1 "nul.jsonl:1: not JSON" "$TOK" count --jsonl text "$T/nul.jsonl"
expect_eq "NUL line skipped" "$("$TOK" encode -t b)" "$("$TOK" encode --jsonl text --skip-bad "$T/nul.jsonl" 2>/dev/null)"

# A line longer than 64 MiB is refused by number, and a stream with no
# newline stops there instead of filling memory.
start=$SECONDS
expect_error 1 "^tok: error: /dev/zero:1: a line longer than 64 MiB" "$TOK" encode --jsonl text /dev/zero
[ $((SECONDS - start)) -le 20 ] || fail "/dev/zero took $((SECONDS - start)) s to refuse"
{ echo '{"text":"ok"}'; head -c $((64 * 1024 * 1024 + 1)) /dev/zero | tr '\0' ' '; echo; } >"$T/long.jsonl"
expect_error 1 "long.jsonl:2: a line longer than 64 MiB" "$TOK" encode --jsonl text --skip-bad "$T/long.jsonl"
expect_error 1 "<stdin>:2: a line longer than 64 MiB" "$TOK" count --jsonl text - <"$T/long.jsonl"
rm -f "$T/long.jsonl"

# --eot-id must be an id of the vocabulary (and so fits every format the
# vocabulary fits); the message names the vocabulary's real size.
expect_error 1 "^tok: error: --eot-id 65536: not an id of r50k_base, whose ids are 0\.\.50256$" \
  "$TOK" encode --jsonl text --eot-id 65536 --format u16 -e gpt2 -o "$T/e.u16" "$J"
expect_error 1 "--eot-id 50257: not an id of r50k_base" "$TOK" encode --jsonl text --eot-id 50257 -e gpt2 "$J"
[ -e "$T/e.u16" ] && fail "a refused --eot-id left a file"
expect_eq "--eot-id last id" "$("$TOK" encode -e gpt2 -t 'Hello world') 50256" \
  "$("$TOK" encode --jsonl text -e gpt2 --eot-id 50256 "$J" | head -1)"

# npy to a FIFO: refused before anything is read or written (its header
# needs a seek back); u32 streams through it.
mkfifo "$T/fifo"
cat "$T/fifo" >"$T/fifo.out" & reader=$!
expect_error 1 "fifo: --format npy needs a file tok can seek in" "$TOK" encode --jsonl text --format npy -o "$T/fifo" "$J"
wait_bounded $reader 20 "FIFO reader"
expect_eq "bytes through the FIFO" 0 "$(wc -c <"$T/fifo.out")"
cat "$T/fifo" >"$T/fifo.out" & reader=$!
"$TOK" encode --jsonl text --eot --format u32 -o "$T/fifo" "$J" || fail "u32 to a FIFO"
wait_bounded $reader 20 "FIFO reader"
cmp -s "$T/fifo.out" "$T/ids.u32" || fail "u32 through a FIFO differs"

# Usage errors.
expect_error 2 "need --jsonl" "$TOK" encode --eot -t hi
expect_error 2 "not -t text" "$TOK" encode --jsonl text -t hi
expect_error 1 "empty key" "$TOK" encode --jsonl 'a..b' "$J"

# Threads: 1 and 2 (and 3) give identical bytes on a corpus of several batches' lines.
/usr/bin/env python3 - "$T/big.jsonl" <<'PY'
import json, random, sys
random.seed(7)
words = ["the", "tok", "naïve", "données", "日本語", "x=1;", "\t", "  ", "Hello", "123", "!"]
with open(sys.argv[1], "w") as f:
    for i in range(20000):
        f.write(json.dumps({"id": i, "text": " ".join(random.choice(words) for _ in range(random.randint(0, 60)))}) + "\n")
PY
"$TOK" encode --jsonl text --eot --threads 1 -o "$T/t1.u32" --index "$T/t1.idx" "$T/big.jsonl"
"$TOK" encode --jsonl text --eot --threads 2 -o "$T/t2.u32" --index "$T/t2.idx" "$T/big.jsonl"
"$TOK" encode --jsonl text --eot --threads 3 -o "$T/t3.u32" "$T/big.jsonl"
cmp -s "$T/t1.u32" "$T/t2.u32" && cmp -s "$T/t1.u32" "$T/t3.u32" || fail "thread counts differ"
cmp -s "$T/t1.idx" "$T/t2.idx" || fail "index differs across thread counts"
expect_eq "documents" 20001 $(( $(wc -c <"$T/t1.idx") / 8 ))

# stdin, and several files in order equal their concatenation.
"$TOK" encode --jsonl text --eot --format u32 <"$T/big.jsonl" >"$T/stdin.u32"
cmp -s "$T/t1.u32" "$T/stdin.u32" || fail "stdin differs from the file"
head -7000 "$T/big.jsonl" >"$T/p1"; tail -n +7001 "$T/big.jsonl" >"$T/p2"
"$TOK" encode --jsonl text --eot -o "$T/parts.u32" "$T/p1" - <"$T/p2"
cmp -s "$T/t1.u32" "$T/parts.u32" || fail "two inputs differ from one"

# Inputs of two 8 MiB batches: a mapped file's next batch is cut while the
# current one is encoded (jsonl_documents.hpp), a pipe's after it. Both give
# the same ids, and the first bad line in input order, at any thread count.
for _ in 1 2 3 4; do cat "$T/big.jsonl"; done >"$T/many.jsonl"
[ "$(wc -c <"$T/many.jsonl")" -gt $((9 << 20)) ] || fail "many.jsonl is under two batches"
cat "$T/many.jsonl" | "$TOK" encode --jsonl text --eot --threads 2 -q -o "$T/pipe.u32" -
for t in 1 3; do
  "$TOK" encode --jsonl text --eot --threads $t -q -o "$T/many$t.u32" "$T/many.jsonl"
  cmp -s "$T/pipe.u32" "$T/many$t.u32" || fail "a file of two batches differs from the pipe ($t threads)"
done
awk 'NR == 60000 { print "not json"; next } NR == 75000 { print "{}"; next } { print }' \
  "$T/many.jsonl" >"$T/bad.jsonl"
expect_error 1 "bad.jsonl:60000: " "$TOK" encode --jsonl text --threads 2 -q -o "$T/x.u32" "$T/bad.jsonl"
expect_error 1 "<stdin>:60000: " "$TOK" count --jsonl text - < <(cat "$T/bad.jsonl")
for t in 1 2; do
  "$TOK" encode --jsonl text --skip-bad --threads $t -o "$T/skip$t.u32" "$T/bad.jsonl" 2>"$T/skip$t.err"
  grep -q "skipped 2 bad lines (first: .*bad.jsonl:60000: " "$T/skip$t.err" ||
    fail "--skip-bad over batches: $(cat "$T/skip$t.err")"
done
cat "$T/bad.jsonl" | "$TOK" encode --jsonl text --skip-bad -q -o "$T/skip-pipe.u32" -
cmp -s "$T/skip1.u32" "$T/skip2.u32" && cmp -s "$T/skip1.u32" "$T/skip-pipe.u32" ||
  fail "--skip-bad over batches differs between threads or from the pipe"
# Batches are written while the next is encoded: a write error is still the
# error, before a later batch's bad line, and a closed pipe still ends quietly.
for t in 1 2; do
  expect_error 1 "^tok: error: /dev/full: cannot write: no space left on device" \
    "$TOK" encode --jsonl text --threads $t --format u32 -o /dev/full "$T/bad.jsonl"
done
"$TOK" encode --jsonl text --threads 2 "$T/bad.jsonl" >/dev/full 2>"$T/full.err"
expect_eq "stdout on /dev/full" "1" "$?"
expect_eq "stdout on /dev/full" "tok: error: cannot write output: No space left on device" \
  "$(cat "$T/full.err")"
"$TOK" encode --jsonl text --threads 2 "$T/many.jsonl" 2>"$T/head.err" | head -1 >/dev/null
expect_eq "encode --jsonl | head" "0" "${PIPESTATUS[0]}"
[ -s "$T/head.err" ] && fail "encode --jsonl | head printed: $(cat "$T/head.err")"

# count --jsonl: the documents' tokens; equals the ids written.
expect_eq "count" "$(( $(wc -c <"$T/t1.u32") / 4 - 20000 ))" "$("$TOK" count -q --jsonl text "$T/big.jsonl")"
expect_error 1 "b.jsonl:2: " "$TOK" count --jsonl text "$B"
expect_eq "count skip-bad" 2 "$("$TOK" count -q --jsonl text --skip-bad "$B" 2>/dev/null)"

# train --jsonl: same vocabulary at any thread count, and from summed shard tables.
"$TOK" train --jsonl text --vocab-size 320 -o "$T/v1" -q --threads 1 "$T/big.jsonl"
"$TOK" train --jsonl text --vocab-size 320 -o "$T/v2" -q --threads 2 "$T/big.jsonl"
cmp -s "$T/v1.tiktoken" "$T/v2.tiktoken" || fail "train --jsonl differs across threads"
"$TOK" train --jsonl text --save-counts "$T/c1" -q "$T/p1"
"$TOK" train --jsonl text --save-counts "$T/c2" -q "$T/p2"
"$TOK" train --from-counts "$T/c1" "$T/c2" --vocab-size 320 -o "$T/v3" -q
cmp -s "$T/v1.tiktoken" "$T/v3.tiktoken" || fail "train from shard tables differs"
expect_error 1 "b.jsonl:2: " "$TOK" train --jsonl text --vocab-size 300 -o "$T/v4" -q "$B"
echo ok
