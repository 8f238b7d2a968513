#!/usr/bin/env bash
# scripts/dask/tokenize.py and train.py on a local cluster of 2 worker
# processes: the concatenated shards equal one `tok encode --jsonl --format
# u32` over the same files, a rerun skips finished shards and rewrites a
# damaged one, and the Dask-trained vocabulary equals `tok train --jsonl`.
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
if ! $PY -c 'import distributed' 2>/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-distributed >/dev/null 2>&1
  fi
  $PY -c 'import distributed' 2>/dev/null || { echo "SKIPPED: python3-distributed is not installed"; exit 0; }
fi
D="$TOK_ROOT/scripts/dask"

# Three inputs of different sizes; small --task-bytes cuts them into many
# tasks, so the two workers finish them out of order.
$PY - "$T" <<'PY'
import json, random, sys
random.seed(3)
words = ["the", "tok", "naïve", "données", "日本語", "x=1;", "\t", "Hello", "123", "!", "\n"]
for name, n in (("a.jsonl", 3000), ("b.jsonl", 500), ("c.jsonl", 4000)):
    with open(f"{sys.argv[1]}/{name}", "w") as f:
        for i in range(n):
            text = " ".join(random.choice(words) for _ in range(random.randint(0, 90)))
            f.write(json.dumps({"id": i, "meta": {"text": text}}) + "\n")
PY
F=("$T/a.jsonl" "$T/b.jsonl" "$T/c.jsonl")
export TOK
$PY "$D/tokenize.py" --workers 2 -e o200k_base --field meta.text --eot --task-bytes 100000 \
  -o "$T/out" "${F[@]}" 2>"$T/err" || fail "tokenize.py: $(cat "$T/err")"
"$TOK" encode --jsonl meta.text --eot --format u32 -o "$T/one.u32" "${F[@]}"
n=$(ls "$T/out"/shard-*.bin | wc -l)
[ "$n" -gt 6 ] || fail "expected many shards, got $n"
cat "$T/out"/shard-*.bin >"$T/all.u32"
cmp -s "$T/one.u32" "$T/all.u32" || fail "concatenated shards differ from one tok encode"
$PY - "$T/out/manifest.json" "$(( $(wc -c <"$T/one.u32") / 4 ))" <<'PY' || fail "manifest"
import json, sys
m = json.load(open(sys.argv[1]))
assert m["complete"], m
assert sum(s["tokens"] for s in m["shards"]) == int(sys.argv[2])
assert sum(s["documents"] for s in m["shards"]) == 7500
assert [s["shard"] for s in m["shards"]] == sorted(s["shard"] for s in m["shards"])
PY

# Rerun: nothing to do; a damaged shard is found by its checksum and redone.
$PY "$D/tokenize.py" --workers 2 -e o200k_base --field meta.text --eot --task-bytes 100000 \
  -o "$T/out" "${F[@]}" 2>"$T/err" || fail "rerun: $(cat "$T/err")"
grep -q "0 written, $n already done" "$T/err" || fail "rerun did work: $(cat "$T/err")"
printf 'xxxx' | dd of="$T/out/shard-00001.bin" bs=1 seek=0 conv=notrunc 2>/dev/null
$PY "$D/tokenize.py" --workers 2 -e o200k_base --field meta.text --eot --task-bytes 100000 \
  -o "$T/out" "${F[@]}" 2>"$T/err" || fail "repair: $(cat "$T/err")"
grep -q "1 written" "$T/err" || fail "damaged shard not redone: $(cat "$T/err")"
cat "$T/out"/shard-*.bin | cmp -s "$T/one.u32" - || fail "repaired shards differ"

# A bad line fails the run with one error naming the file.
printf '{"meta":{"text":"ok"}}\nnot json\n' >"$T/bad.jsonl"
$PY "$D/tokenize.py" --workers 2 --field meta.text -o "$T/badout" "$T/bad.jsonl" 2>"$T/err" && fail "bad line accepted"
grep -q "^tok: error: .*bad.jsonl.*:2: not JSON" "$T/err" || fail "bad-line error: $(tail -3 "$T/err")"

# Training: Dask-merged count tables give the one-machine vocabulary.
$PY "$D/train.py" --workers 2 --field meta.text --vocab-size 400 --task-bytes 100000 \
  -o "$T/dv" "${F[@]}" 2>"$T/err" || fail "train.py: $(cat "$T/err")"
"$TOK" train --jsonl meta.text --vocab-size 400 -o "$T/v" -q "${F[@]}"
cmp -s "$T/v.tiktoken" "$T/dv.tiktoken" || fail "Dask-trained vocabulary differs"
cmp -s "$T/v.tiktoken.json" "$T/dv.tiktoken.json" || fail "Dask-trained sidecar differs"

# GNU parallel recipe (docs/scale-out.md), installed here when missing.
if ! command -v parallel >/dev/null && [ "$(id -u)" = 0 ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q parallel >/dev/null 2>&1
fi
if ! command -v parallel >/dev/null; then
  echo "SKIPPED: the GNU parallel recipe (parallel is not installed)"
else
  mkdir "$T/par"
  parallel --will-cite -j 2 --halt now,fail=1 "$TOK" encode --jsonl meta.text --eot -o "$T/par/{#}.u32" {} ::: "${F[@]}"
  cat "$T/par/1.u32" "$T/par/2.u32" "$T/par/3.u32" | cmp -s "$T/one.u32" - || fail "GNU parallel recipe differs"
fi
echo ok
