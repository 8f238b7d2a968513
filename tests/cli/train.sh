#!/usr/bin/env bash
# tok train: outputs load in tok encode, round trip, determinism across
# thread counts, counts-shard merging, and one-line errors on bad input.
source "$(dirname "$0")/lib.sh"
S="$TOK_TEST_DATA/train/sample.txt"

# Train, then load the vocabulary by its .tiktoken path (sidecar gives pattern).
expect_status 0 "$TOK" train "$S" --vocab-size 600 -o "$T/v" --special-token '<|end|>' -q
[ -s "$T/v.tiktoken" ] || fail "no v.tiktoken written"
[ -s "$T/v.tiktoken.json" ] || fail "no sidecar written"
[ -e "$T/v.tokenizer.json" ] && fail "tokenizer.json written without --format hf"
expect_eq "ranks" 600 "$(( $(wc -l <"$T/v.tiktoken") + 1 ))"
grep -q '"<|end|>": 599' "$T/v.tiktoken.json" || fail "special id: $(cat "$T/v.tiktoken.json")"
# The sidecar stores the split regex itself (other loaders need it), the name beside it.
grep -q '"pattern_name": "o200k"' "$T/v.tiktoken.json" || fail "pattern name: $(cat "$T/v.tiktoken.json")"
grep -q '"pattern": "o200k"' "$T/v.tiktoken.json" && fail "pattern stored as a name: $(cat "$T/v.tiktoken.json")"
grep -qF '\\p{L' "$T/v.tiktoken.json" || fail "pattern is not the regex: $(cat "$T/v.tiktoken.json")"
"$TOK" encode -e "$T/v.tiktoken" "$S" >"$T/ids" || fail "encode with trained vocab"
"$TOK" decode -e "$T/v.tiktoken" <"$T/ids" >"$T/back" || fail "decode with trained vocab"
cmp -s "$S" "$T/back" || fail "decode(encode(x)) != x"
n=$("$TOK" count -q -e "$T/v.tiktoken" "$S")
# A sidecar of the old form (a pattern name) still loads, with the same count.
mkdir -p "$T/old" && cp "$T/v.tiktoken" "$T/old/v.tiktoken"
printf '{"pattern": "o200k", "special_tokens": {"<|end|>": 599}}' >"$T/old/v.tiktoken.json"
expect_eq "old sidecar count" "$n" "$("$TOK" count -q -e "$T/old/v.tiktoken" "$S")"
[ "$n" -lt $(( $(wc -c <"$S") / 2 )) ] || fail "trained vocabulary compresses poorly: $n tokens"

# OUT ending in .tiktoken is not doubled; first ids are the bytes.
expect_status 0 "$TOK" train "$S" --vocab-size 300 -o "$T/w.tiktoken" -q
[ -s "$T/w.tiktoken" ] || fail "w.tiktoken missing"
[ -e "$T/w.tiktoken.tiktoken" ] && fail "suffix doubled"
expect_eq "rank 65" "QQ== 65" "$(sed -n 66p "$T/w.tiktoken")"

# Identical output for any thread count, and from stdin.
for th in 1 2 3; do
  expect_status 0 "$TOK" train "$S" "$S" --vocab-size 800 -o "$T/t$th" --threads $th -q
done
cmp -s "$T/t1.tiktoken" "$T/t2.tiktoken" || fail "threads 1 vs 2 differ"
cmp -s "$T/t1.tiktoken" "$T/t3.tiktoken" || fail "threads 1 vs 3 differ"
cat "$S" "$S" | "$TOK" train --vocab-size 800 -o "$T/stdin" -q || fail "train from stdin"
cmp -s "$T/t1.tiktoken" "$T/stdin.tiktoken" || fail "stdin differs from files"

# Count shards, merge them: same vocabulary as training on the concatenation.
head -c 30000 "$S" >"$T/a.txt"; tail -c +30001 "$S" >"$T/b.txt"
expect_status 0 "$TOK" train "$T/a.txt" --save-counts "$T/a.counts" -q
expect_status 0 "$TOK" train "$T/b.txt" --save-counts "$T/b.counts" -q
head -1 "$T/a.counts" | grep -q '^#tok-word-counts v1' || fail "counts header: $(head -1 "$T/a.counts")"
expect_status 0 "$TOK" train --from-counts "$T/a.counts" "$T/b.counts" --vocab-size 700 -o "$T/shards" -q
expect_status 0 "$TOK" train "$T/a.txt" "$T/b.txt" --vocab-size 700 -o "$T/whole" -q
cmp -s "$T/shards.tiktoken" "$T/whole.tiktoken" || fail "shards differ from the concatenation"
cmp -s "$T/shards.tiktoken.json" "$T/whole.tiktoken.json" || fail "shard sidecar differs"
# Streaming form (Hadoop/Spark mappers): stdin in, table on stdout.
"$TOK" train --save-counts - -q <"$T/a.txt" >"$T/a2.counts" || fail "--save-counts -"
cmp -s "$T/a.counts" "$T/a2.counts" || fail "--save-counts - differs from the file"

# Directories recurse; binary files are skipped with a note.
mkdir -p "$T/dir/sub"; cp "$T/a.txt" "$T/dir/"; cp "$T/b.txt" "$T/dir/sub/"
printf 'abc\0def' >"$T/dir/bin.dat"
expect_status 0 "$TOK" train "$T/dir" --vocab-size 700 -o "$T/fromdir"
grep -q "skipping binary file .*bin.dat" "$T/err" || fail "no binary note: $(cat "$T/err")"
grep -q "tok: train: .*unique words.*peak memory" "$T/err" || fail "no summary: $(cat "$T/err")"
cmp -s "$T/fromdir.tiktoken" "$T/whole.tiktoken" || fail "directory input differs"

# --max-token-bytes and --pattern gpt2 with --min-frequency.
expect_status 0 "$TOK" train "$S" --vocab-size 900 --max-token-bytes 4 --pattern gpt2 --min-frequency 3 -o "$T/m" -q
while read -r b64 rank; do
  [ "$(printf '%s' "$b64" | base64 -d | wc -c)" -le 4 ] || fail "token $rank longer than 4 bytes"
done <"$T/m.tiktoken"

# Bad inputs: one line, exit 1; nothing written, existing output untouched.
: >"$T/empty.txt"
expect_error 1 "empty corpus" "$TOK" train "$T/empty.txt" --vocab-size 300 -o "$T/e"
[ -e "$T/e.tiktoken" ] && fail "output written for empty corpus"
expect_error 1 "too small" "$TOK" train "$S" --vocab-size 256 --special-token '<|x|>' -o "$T/e"
expect_error 1 "no such file" "$TOK" train "$T/missing.txt" --vocab-size 300 -o "$T/e"
chmod 000 "$T/a.txt"
if [ "$(id -u)" != 0 ]; then
  expect_error 1 "permission denied" "$TOK" train "$T/a.txt" --vocab-size 300 -o "$T/e"
fi
chmod 644 "$T/a.txt"
expect_error 1 "cannot create output file" "$TOK" train "$S" --vocab-size 300 -o "$T/nodir/x"
cp "$T/v.tiktoken" "$T/keep"
expect_error 1 "empty corpus" "$TOK" train "$T/empty.txt" --vocab-size 300 -o "$T/v"
cmp -s "$T/v.tiktoken" "$T/keep" || fail "failed run changed an existing output"
ls "$T" | grep -q '\.tmp\.' && fail "temporary file left behind: $(ls "$T")"
expect_error 1 "not a word-count table" "$TOK" train --from-counts "$S" --vocab-size 300 -o "$T/e"
expect_error 2 "vocab-size" "$TOK" train "$S" -o "$T/e"
expect_error 2 "not both" "$TOK" train "$S" --from-counts "$T/a.counts" --vocab-size 300 -o "$T/e"
exit 0
