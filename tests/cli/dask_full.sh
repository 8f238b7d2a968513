#!/usr/bin/env bash
# scripts/dask/encode_shards.py and train.py on a local cluster of 2 worker
# processes: the shards, concatenated in the manifest's order, equal one `tok
# encode --jsonl` over the same files; a rerun keeps unchanged shards and
# redoes damaged ones and those whose input changed (same size and mtime
# included); the folder is locked against a second run; a damaged manifest
# or a stray shard is one line; tokenizing options pass through and the
# workers' warnings reach the user; a bad line fails once, in one line; the
# Dask-trained vocabulary equals `tok train --jsonl`.
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
if ! $PY -c 'import distributed' 2>/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-distributed >/dev/null 2>&1
  fi
  $PY -c 'import distributed' 2>/dev/null || { echo "SKIPPED: python3-distributed is not installed"; exit 0; }
fi
D="$TOK_ROOT/scripts/dask"
export TOK

# Three inputs of different sizes; small --task-bytes cuts them into many
# tasks, so the two workers finish them out of order. Some documents quote
# <|endoftext|>, as real web text does.
$PY - "$T" <<'PY'
import json, random, sys
random.seed(3)
words = ["the", "tok", "naïve", "données", "日本語", "x=1;", "\t", "Hello", "123", "!", "\n"]
for name, n in (("a.jsonl", 3000), ("b.jsonl", 500), ("c.jsonl", 4000)):
    with open(f"{sys.argv[1]}/{name}", "w") as f:
        for i in range(n):
            text = " ".join(random.choice(words) for _ in range(random.randint(0, 90)))
            if random.random() < 0.1:
                text += " <|endoftext|>"
            f.write(json.dumps({"id": i, "meta": {"text": text}}) + "\n")
PY
F=("$T/a.jsonl" "$T/b.jsonl" "$T/c.jsonl")
quoting=$(cat "${F[@]}" | grep -c '<|endoftext|>')
shards() {  # shards() OUTDIR: the shards concatenated in the manifest's order
  $PY -c 'import json, os, sys
d = sys.argv[1]
for s in json.load(open(os.path.join(d, "manifest.json")))["shards"]:
    sys.stdout.buffer.write(open(os.path.join(d, s["shard"]), "rb").read())' "$1"
}
encode() { $PY "$D/encode_shards.py" --workers 2 --field meta.text --eot --task-bytes 100000 "$@"; }

# The default is --special text, as `tok encode --jsonl`: no document is lost.
encode --skip-bad -o "$T/shards" "${F[@]}" 2>"$T/err" || fail "encode_shards.py: $(cat "$T/err")"
"$TOK" encode -q --jsonl meta.text --eot --format u32 -o "$T/one.u32" "${F[@]}"
n=$(ls "$T/shards"/shard-*.bin | wc -l)
[ "$n" -gt 6 ] || fail "expected many shards, got $n"
shards "$T/shards" | cmp -s "$T/one.u32" - || fail "shards differ from one tok encode"
cat "$T/shards"/shard-*.bin | cmp -s "$T/one.u32" - || fail "cat shard-*.bin differs from one tok encode"
grep -q "^encode_shards.py: $n shards ($n written, 0 already done), 7500 documents, $(( $(wc -c <"$T/one.u32") / 4 )) tokens, 0 bad lines skipped, $quoting quoting special tokens (encoded as text)$" "$T/err" ||
  fail "summary: $(tail -2 "$T/err")"
expect_eq "a line per shard" "$n" "$(grep -c '^encode_shards.py: shard-[0-9]*.bin ([0-9]*/[0-9]*): [0-9]* documents, [0-9]* tokens$' "$T/err")"
$PY - "$T/shards/manifest.json" "$(( $(wc -c <"$T/one.u32") / 4 ))" "$quoting" <<'PY' || fail "manifest"
import json, os, sys
m = json.load(open(sys.argv[1]))
assert m["complete"], m
assert sum(s["tokens"] for s in m["shards"]) == int(sys.argv[2])
assert sum(s["documents"] for s in m["shards"]) == 7500
assert sum(s["special_as_text"] for s in m["shards"]) == int(sys.argv[3])
assert [s["shard"] for s in m["shards"]] == sorted(s["shard"] for s in m["shards"])
on_disk = sorted(f for f in os.listdir(os.path.dirname(sys.argv[1])) if f.startswith("shard-"))
assert on_disk == [s["shard"] for s in m["shards"]], on_disk
for s in m["shards"]:
    assert s["size"] == os.path.getsize(s["source"]) and len(s["input_sha256"]) == 64, s
PY

# Rerun: nothing to do; a damaged shard is found by its checksum and redone.
encode --skip-bad -o "$T/shards" "${F[@]}" 2>"$T/err" || fail "rerun: $(cat "$T/err")"
grep -q "(0 written, $n already done)" "$T/err" || fail "rerun did work: $(cat "$T/err")"
printf 'xxxx' | dd of="$T/shards/shard-00001.bin" bs=1 seek=0 conv=notrunc 2>/dev/null
encode --skip-bad -o "$T/shards" "${F[@]}" 2>"$T/err" || fail "repair: $(cat "$T/err")"
grep -q "(1 written" "$T/err" || fail "damaged shard not redone: $(cat "$T/err")"
shards "$T/shards" | cmp -s "$T/one.u32" - || fail "repaired shards differ"

# An input edited in place, same size and mtime: its task is redone.
cp -p "$T/b.jsonl" "$T/b.orig"
$PY - "$T/b.jsonl" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
i = data.index(b"Hello")
open(sys.argv[1], "r+b").write(data[:i] + b"HELLO" + data[i + 5:])
PY
touch -r "$T/b.orig" "$T/b.jsonl"
encode --skip-bad -o "$T/shards" "${F[@]}" 2>"$T/err" || fail "edited input: $(cat "$T/err")"
grep -q "(1 written" "$T/err" || fail "edited input not redone: $(cat "$T/err")"
"$TOK" encode -q --jsonl meta.text --eot --format u32 -o "$T/one.u32" "${F[@]}"
shards "$T/shards" | cmp -s "$T/one.u32" - || fail "shards of the edited input differ"

# The lock: a live owner (here or on another host) is respected; a dead
# one's lock on this host is taken over, saying so.
sleep 60 & owner=$!
printf '{"pid": %d, "host": "%s"}' "$owner" "$(hostname)" >"$T/shards/.lock"
expect_error 1 "shards/.lock: another run \(pid $owner on $(hostname)\) is writing into this folder; wait for it" \
  encode -o "$T/shards" "${F[@]}"
printf '{"pid": %d, "host": "elsewhere"}' 1 >"$T/shards/.lock"
expect_error 1 "shards/.lock: another run \(pid 1 on elsewhere\)" encode -o "$T/shards" "${F[@]}"
kill "$owner"; wait "$owner" 2>/dev/null
printf '{"pid": %d, "host": "%s"}' "$owner" "$(hostname)" >"$T/shards/.lock"
encode --skip-bad -o "$T/shards" "${F[@]}" 2>"$T/err" || fail "stale lock: $(cat "$T/err")"
grep -q "^tok: note: .*shards/.lock: taking over the lock of pid $owner (no longer running)$" "$T/err" ||
  fail "stale lock not reported: $(cat "$T/err")"
[ -e "$T/shards/.lock" ] && fail "the lock outlived its run"
# Two runs at once into one folder: one of them is refused.
encode --skip-bad -o "$T/two" "${F[@]}" 2>"$T/err1" & first=$!
encode --skip-bad -o "$T/two" "${F[@]}" 2>"$T/err2"; rc2=$?
wait "$first"; rc1=$?
expect_eq "one of two concurrent runs refused" 1 "$(( (rc1 != 0) + (rc2 != 0) ))"
cat "$T/err1" "$T/err2" | grep -q "^tok: error: .*two/.lock: another run (pid [0-9]* on " ||
  fail "concurrent run: $(cat "$T/err1" "$T/err2")"
shards "$T/two" | cmp -s "$T/one.u32" - || fail "the run that went on differs"

# A stray shard-* file is refused in one line; a shard of an earlier,
# longer plan is removed; a damaged manifest is one line, no traceback.
touch "$T/shards/shard-foo.bin"
expect_error 1 "shards/shard-foo.bin: not a shard of this run .*; move it out of " encode -o "$T/shards" "${F[@]}"
rm "$T/shards/shard-foo.bin"
cp "$T/shards/shard-00000.bin" "$T/shards/shard-00999.bin"
encode --skip-bad -o "$T/shards" "${F[@]}" 2>"$T/err" || fail "old shard: $(cat "$T/err")"
[ -e "$T/shards/shard-00999.bin" ] && fail "a shard of another plan was kept"
cp "$T/shards/manifest.json" "$T/manifest.good"
head -c 300 "$T/manifest.good" >"$T/shards/manifest.json"
expect_error 1 "shards/manifest.json: not valid JSON .*; remove it, and the next run redoes every shard" \
  encode --skip-bad -o "$T/shards" "${F[@]}"
echo '[1]' >"$T/shards/manifest.json"
expect_error 1 "shards/manifest.json: not a manifest" encode --skip-bad -o "$T/shards" "${F[@]}"
$PY -c 'import json, sys
m = json.load(open(sys.argv[1])); del m["shards"][2]["sha256"]; json.dump(m, open(sys.argv[2], "w"))' \
  "$T/manifest.good" "$T/shards/manifest.json"
expect_error 1 "shards/manifest.json: shards\[2\] has no valid sha256; remove it" encode --skip-bad -o "$T/shards" "${F[@]}"

# Shard names sort in task order past 100,000 tasks.
$PY -c 'import sys; sys.path.insert(0, sys.argv[1]); import encode_shards as e
names = e.shard_names(100001)
assert names == sorted(names) and names[0] == "shard-000000.bin" and names[-1] == "shard-100000.bin", names[-1]
assert e.shard_names(3) == ["shard-00000.bin", "shard-00001.bin", "shard-00002.bin"]' "$D" || fail "shard names"

# Options pass through: --special error --skip-bad skips the quoting
# documents, and the workers' warnings reach the user.
encode --special error --skip-bad --format u16 -e gpt2 -o "$T/err-out" "${F[@]}" 2>"$T/err" || fail "--special error: $(cat "$T/err")"
grep -q "^tok: warning: skipped [0-9]* bad lines\? (first: .*a.jsonl (bytes [0-9]*-[0-9]*), line [0-9]* of that range: the text contains the special token <|endoftext|>" "$T/err" ||
  fail "worker warning lost: $(cat "$T/err")"
grep -q ", $((7500 - quoting)) documents, [0-9]* tokens, $quoting bad lines skipped$" "$T/err" || fail "skipped summary: $(tail -1 "$T/err")"
"$TOK" encode -q --jsonl meta.text --eot --special error --skip-bad --format u16 -e gpt2 -o "$T/one.u16" "${F[@]}" 2>/dev/null
shards "$T/err-out" | cmp -s "$T/one.u16" - || fail "--special error --format u16 shards differ"

# A bad line fails the run in one line, with its line in the whole file,
# and its task is not retried.
$PY -c 'import sys
with open(sys.argv[1], "w") as f:
    for i in range(3000):
        f.write("{\"meta\":{\"text\":\"line %d\"}}\n" % i if i != 2499 else "not json\n")' "$T/bad.jsonl"
printf '#!/bin/sh\necho run >>"%s"\nexec "%s" "$@"\n' "$T/calls" "$TOK" >"$T/tokw"
chmod +x "$T/tokw"
expect_error 1 "^tok: error: .*bad.jsonl:2500: not JSON" encode -q --tok "$T/tokw" --workers 1 --task-bytes 30000 -o "$T/badout" "$T/bad.jsonl"
tasks=$($PY -c 'import sys; sys.path.insert(0, sys.argv[1]); import tokjobs; print(len(tokjobs.plan([sys.argv[2]], 30000)))' "$D" "$T/bad.jsonl")
[ "$(wc -l <"$T/calls")" -le "$tasks" ] || fail "the failed task was retried: $(wc -l <"$T/calls") runs for $tasks tasks"

# Training: Dask-merged count tables give the one-machine vocabulary, with
# the options passed through.
$PY "$D/train.py" --workers 2 --field meta.text --vocab-size 400 --task-bytes 100000 --special-token '<|end|>' \
  --min-frequency 2 -o "$T/dv" "${F[@]}" 2>"$T/err" || fail "train.py: $(cat "$T/err")"
"$TOK" train --jsonl meta.text --vocab-size 400 --special-token '<|end|>' --min-frequency 2 -o "$T/v" -q "${F[@]}"
cmp -s "$T/v.tiktoken" "$T/dv.tiktoken" || fail "Dask-trained vocabulary differs"
cmp -s "$T/v.tiktoken.json" "$T/dv.tiktoken.json" || fail "Dask-trained sidecar differs"
grep -q "^train.py: [0-9]* tasks, 7500 documents, 0 bad lines skipped, vocabulary .*dv.tiktoken$" "$T/err" ||
  fail "train.py summary: $(tail -1 "$T/err")"
$PY "$D/train.py" -q --workers 1 --field meta.text --vocab-size 300 --task-bytes 30000 --skip-bad \
  -o "$T/sv" "$T/bad.jsonl" 2>"$T/err" || fail "train.py --skip-bad: $(cat "$T/err")"
grep -q "^tok: warning: skipped 1 bad line (first: .*bad.jsonl (bytes [0-9]*-[0-9]*), line [0-9]* of that range: not JSON" "$T/err" ||
  fail "train.py warning lost: $(cat "$T/err")"
grep -q "^train.py: [0-9]* tasks, 2999 documents, 1 bad lines skipped, " "$T/err" || fail "train.py skip summary: $(cat "$T/err")"
expect_error 1 "^tok: error: .*bad.jsonl:2500: not JSON" $PY "$D/train.py" -q --workers 1 --field meta.text --vocab-size 300 \
  --task-bytes 30000 -o "$T/bv" "$T/bad.jsonl"

# GNU parallel recipe (docs/scale-out.md), installed here when missing.
if ! command -v parallel >/dev/null && [ "$(id -u)" = 0 ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q parallel >/dev/null 2>&1
fi
if ! command -v parallel >/dev/null; then
  echo "SKIPPED: the GNU parallel recipe (parallel is not installed)"
else
  mkdir "$T/par"
  parallel --will-cite -j 2 --halt now,fail=1 "$TOK" encode -q --jsonl meta.text --eot -o "$T/par/{#}.u32" {} ::: "${F[@]}"
  cat "$T/par/1.u32" "$T/par/2.u32" "$T/par/3.u32" | cmp -s "$T/one.u32" - || fail "GNU parallel recipe differs"
fi
echo ok
