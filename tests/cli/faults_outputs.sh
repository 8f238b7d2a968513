#!/usr/bin/env bash
# Atomic outputs under faults: tok train, tok quantize and tok show --html,
# interrupted by SIGINT while their temporary file exists or stopped by a
# file size limit (ulimit -f; tok ignores SIGXFSZ so write() fails with
# EFBIG), leave the previous output intact and no temporary file behind. The
# size limit is one line "tok: error: FILE: cannot write: ..." and exit 1.
# tok encode --jsonl -o IDS --index IDX commits both files or neither, under
# a size limit at the ids' last flush and under SIGTERM while they flush.
source "$(dirname "$0")/lib.sh"
# Job control: without it bash starts background commands with SIGINT and
# SIGQUIT ignored, and tok (like GNU tools) leaves an ignored signal ignored.
set -m
M="$TOK_ROOT/vocab/tok-tiny-bible.gguf"
S="$TOK_TEST_DATA/train/sample.txt"

no_temporaries() {  # no_temporaries WHAT
  local left
  left=$(find "$T" -name '*.tmp.*')
  [ -z "$left" ] || fail "$1: temporary files left behind: $left"
}
# same_or_new WHAT FILE OLD NEW: FILE is the previous output OLD, or (the
# signal came after the rename) the complete new output NEW; never partial.
same_or_new() {
  cmp -s "$2" "$3" && return 0
  [ -n "$4" ] && cmp -s "$2" "$4" && return 0
  fail "$1: $2 is neither the previous file nor the complete new one ($(wc -c <"$2") bytes)"
}
# interrupt WHAT GLOB CMD...: runs CMD, sends SIGINT as soon as a file
# matching GLOB (its temporary) exists (polled every millisecond), and
# expects tok to die of SIGINT (status 130). Retried a few times if tok wins
# the race; it never may on all of them.
exec {tick}<> <(:)  # `read -t` on it: a sleep without a process per poll
interrupt() {
  local what=$1 glob=$2 try pid seen st end
  shift 2
  for try in 1 2 3 4 5; do
    "$@" >/dev/null 2>"$T/err" &
    pid=$! seen=0 end=$((SECONDS + 120))
    while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $end ]; do
      if compgen -G "$glob" >/dev/null; then seen=1; break; fi
      read -r -t 0.001 -u "$tick" || true
    done
    [ $seen = 1 ] && kill -INT "$pid"
    wait_bounded "$pid" 120 "$what"; st=$?
    if [ $seen = 1 ]; then
      expect_eq "$what: exit status after SIGINT" 130 "$st"
      echo "$what: interrupted on try $try"
      return 0
    fi
  done
  fail "$what: tok always finished before its temporary file was seen; cannot test SIGINT"
}

# --- tok train: the temporaries are created before training starts.
big="$T/corpus.txt"
find /usr/include -name '*.h' -size -100k | sort | head -400 | xargs cat | head -c 3000000 >"$big"
echo "old tiktoken" >"$T/v.tiktoken"; cp "$T/v.tiktoken" "$T/old.tiktoken"
echo "old sidecar" >"$T/v.tiktoken.json"; cp "$T/v.tiktoken.json" "$T/old.json"
interrupt "train" "$T/v.tiktoken.tmp.*" "$TOK" train "$big" --vocab-size 4000 -o "$T/v" -q
same_or_new "train" "$T/v.tiktoken" "$T/old.tiktoken" ""
same_or_new "train" "$T/v.tiktoken.json" "$T/old.json" ""
no_temporaries "train after SIGINT"
expect_error 1 "^tok: error: $T/v\.tiktoken(\.json)?: cannot write: file too large \(size limit reached\)$" \
  bash -c 'ulimit -f 2; exec "$0" train "$1" --vocab-size 600 -o "$2" -q' "$TOK" "$S" "$T/v"
same_or_new "train under ulimit -f" "$T/v.tiktoken" "$T/old.tiktoken" ""
same_or_new "train under ulimit -f" "$T/v.tiktoken.json" "$T/old.json" ""
no_temporaries "train under ulimit -f"

# --- tok quantize: the whole file is written after quantizing.
"$TOK" quantize "$M" "$T/new.gguf" --type f16 2>/dev/null || fail "quantize f16"
echo "old model" >"$T/q.gguf"; cp "$T/q.gguf" "$T/old.gguf"
interrupt "quantize" "$T/q.gguf.tmp.*" "$TOK" quantize "$M" "$T/q.gguf" --type f16
same_or_new "quantize" "$T/q.gguf" "$T/old.gguf" "$T/new.gguf"
no_temporaries "quantize after SIGINT"
cp "$T/old.gguf" "$T/q.gguf"
expect_error 1 "^tok: error: $T/q\.gguf: cannot write: file too large \(size limit reached\)$" \
  bash -c 'ulimit -f 100; exec "$0" quantize "$1" "$2" --type f16' "$TOK" "$M" "$T/q.gguf"
same_or_new "quantize under ulimit -f" "$T/q.gguf" "$T/old.gguf" ""
no_temporaries "quantize under ulimit -f"

# --- tok show --html: a report page for a 300 KB input.
head -c 300000 "$big" >"$T/page.txt"
"$TOK" show --html "$T/new.html" "$T/page.txt" || fail "show --html"
echo "old page" >"$T/p.html"; cp "$T/p.html" "$T/old.html"
interrupt "show --html" "$T/p.html.tmp.*" "$TOK" show --html "$T/p.html" "$T/page.txt"
same_or_new "show --html" "$T/p.html" "$T/old.html" "$T/new.html"
no_temporaries "show --html after SIGINT"
cp "$T/old.html" "$T/p.html"
expect_error 1 "^tok: error: $T/p\.html: cannot write: file too large \(size limit reached\)$" \
  bash -c 'ulimit -f 100; exec "$0" show --html "$1" "$2"' "$TOK" "$T/p.html" "$T/page.txt"
same_or_new "show --html under ulimit -f" "$T/p.html" "$T/old.html" ""
no_temporaries "show --html under ulimit -f"

# --- tok encode --jsonl -o IDS --index IDX: both new or both old. The ids
# (about 2.4 KB) stay in stdio's buffer until the final flush, after every
# document is written: the point where the index used to be renamed already.
J="$T/docs.jsonl"
for i in $(seq 1 60); do echo "{\"text\":\"Hello there, world number $i.\"}"; done >"$J"
"$TOK" encode --jsonl text --eot -o "$T/new.u32" --index "$T/new.idx" "$J" || fail "encode --jsonl"
[ "$(wc -c <"$T/new.u32")" -gt 1024 ] && [ "$(wc -c <"$T/new.idx")" -lt 1024 ] || fail "sizes for ulimit -f 1"
echo "old ids" >"$T/d.u32"; cp "$T/d.u32" "$T/old.u32"
echo "old index" >"$T/d.idx"; cp "$T/d.idx" "$T/old.idx"
# The disk "full" at the ids' final flush (1 KiB limit: the index fits).
expect_error 1 "^tok: error: $T/d\.u32: cannot write: file too large \(size limit reached\)$" \
  bash -c 'ulimit -f 1; exec "$0" encode --jsonl text --eot -o "$1" --index "$2" "$3"' "$TOK" "$T/d.u32" "$T/d.idx" "$J"
same_or_new "encode --jsonl ids under ulimit -f" "$T/d.u32" "$T/old.u32" ""
same_or_new "encode --jsonl index under ulimit -f" "$T/d.idx" "$T/old.idx" ""
no_temporaries "encode --jsonl under ulimit -f"
# SIGTERM while the ids wait to go into a full FIFO (a reader that reads
# nothing, its buffer filled first): the index must not be in place yet.
mkfifo "$T/ids.fifo"
exec {hold}<>"$T/ids.fifo"
timeout 1 cat /dev/zero >"$T/ids.fifo"
"$TOK" encode --jsonl text --eot -o "$T/ids.fifo" --index "$T/d.idx" "$J" 2>"$T/err" &
pid=$! end=$((SECONDS + 60)) blocked=""
while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $end ]; do
  cmp -s "$T/d.idx" "$T/old.idx" || break
  grep -q pipe_write "/proc/$pid/wchan" 2>/dev/null && { blocked=1; break; }
  read -r -t 0.01 -u "$tick" || true
done
kill -TERM "$pid" 2>/dev/null
wait_bounded "$pid" 60 "encode --jsonl blocked on a FIFO"; st=$?
exec {hold}<&-
cmp -s "$T/d.idx" "$T/old.idx" || fail "encode --jsonl: the index was replaced before the ids were written"
[ -n "$blocked" ] || fail "encode --jsonl never blocked on the full FIFO (status $st: $(cat "$T/err"))"
expect_eq "encode --jsonl: status after SIGTERM" 143 "$st"
no_temporaries "encode --jsonl after SIGTERM"
echo ok
