#!/usr/bin/env bash
# tok chunk in one pass: -n 1 on a 12 KB file is fast (it took 23 s), the
# pieces tile the input (no overlap) and each fits its budget, and the first
# line reaches a reader that leaves early without waiting for the rest.
source "$(dirname "$0")/lib.sh"
# ASCII text: with -n 1 a character split over two tokens cannot be a piece.
R="$TOK_ROOT/vocab/samples/en.txt"
for _ in $(seq 1 3000); do cat "$R"; done | LC_ALL=C tr -cd '\11\12\15\40-\176' |
  head -c 5000000 >"$T/ascii.txt"
head -c 12000 "$T/ascii.txt" >"$T/12k.txt"
[ "$(wc -c <"$T/12k.txt")" -eq 12000 ] || fail "could not make 12 KB of ASCII text"

# The wall-clock limits below hold for an optimized build; under a sanitizer
# (several times slower, on a shared machine) only the results are checked.
limits=1 hang=60
sanitized && { limits=0 hang=600; echo "sanitizer build: time limits not checked"; }
start=$(date +%s%N)
expect_status 0 timeout $hang "$TOK" chunk -n 1 "$T/12k.txt"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
echo "chunk -n 1 on 12 KB: $ms ms"
[ $limits = 0 ] || [ "$ms" -lt 10000 ] || fail "chunk -n 1 on 12 KB took $ms ms"
cp "$T/out" "$T/n1.jsonl"

python3 - "$T/n1.jsonl" "$T/12k.txt" 1 0 <<'PY' || fail "chunk -n 1: pieces do not tile the input"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
data = open(sys.argv[2], "rb").read()
n, overlap = int(sys.argv[3]), int(sys.argv[4])
pos = 0
for i, c in enumerate(lines):
    assert c["index"] == i and 1 <= c["tokens"] <= n, c
    if overlap == 0:
        assert c["start"] == pos, (c, pos)
    assert c["start"] < c["end"], c
    pos = c["end"]
assert pos == len(data), (pos, len(data))
PY
tokens=$("$TOK" count -q "$T/12k.txt")
[ "$(wc -l <"$T/n1.jsonl")" -le "$tokens" ] || fail "-n 1: more pieces than tokens"

for n in 7 100; do
  expect_status 0 "$TOK" chunk -n $n "$T/12k.txt"
  python3 - "$T/out" "$T/12k.txt" $n 0 <<'PY' || fail "chunk -n $n: bad pieces"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
n, pos = int(sys.argv[3]), 0
for c in lines:
    assert c["start"] == pos and 1 <= c["tokens"] <= n, c
    pos = c["end"]
assert pos == len(open(sys.argv[2], "rb").read())
PY
done
expect_status 0 "$TOK" chunk -n 50 --overlap 10 "$T/12k.txt"
python3 - "$T/out" "$T/12k.txt" 50 10 <<'PY' || fail "chunk --overlap: bad pieces"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
for a, b in zip(lines, lines[1:]):
    assert a["start"] < b["start"] < a["end"], (a, b)
assert lines[-1]["end"] == len(open(sys.argv[2], "rb").read())
PY

# Streaming: 5 MB of text, -n 1, read one byte. The first line comes at once
# and tok stops quietly when the reader leaves (well before chunking it all).
cp "$T/ascii.txt" "$T/big.txt"
start=$(date +%s%N)
first=$(timeout $hang "$TOK" chunk -n 1 "$T/big.txt" 2>"$T/err1" | head -c 1)
ms=$(( ($(date +%s%N) - start) / 1000000 ))
echo "chunk -n 1 on 5 MB | head -c 1: $ms ms"
expect_eq "first byte" "{" "$first"
expect_eq "chunk | head: stderr" "" "$(cat "$T/err1")"
[ $limits = 0 ] || [ "$ms" -lt 5000 ] || fail "chunk | head -c 1 took $ms ms: not streamed"
echo ok
