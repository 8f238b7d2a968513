#!/usr/bin/env bash
# Terminating signals during output: every one tok can catch removes the
# temporary files and ends tok with that signal's default action (the
# caller still sees "killed by SIGHUP"); the previous output stays intact.
# Outputs written together (train -o: X.tiktoken and X.tiktoken.json) are
# always both old or both new, whenever SIGINT arrives.
source "$(dirname "$0")/lib.sh"
# Job control: without it bash starts background commands with SIGINT and
# SIGQUIT ignored, and tok (like GNU tools) leaves an ignored signal ignored.
set -m
ulimit -c 0  # SIGQUIT and the crash signals would dump core
M="$TOK_ROOT/vocab/tok-tiny-bible.gguf"
S="$TOK_TEST_DATA/train/sample.txt"

no_temporaries() {
  local left
  left=$(find "$T" -name '*.tmp.*')
  [ -z "$left" ] || fail "$1: temporary files left behind: $left"
}
exec {tick}<> <(:)  # `read -t` on it: a sleep without a process per poll
# signal_when_created PID GLOB SIG: sends SIG to PID as soon as a file
# matching GLOB (its temporary) exists; returns 1, sending nothing, if PID
# ended first (or after 120 s).
signal_when_created() {
  local pid=$1 glob=$2 sig=$3 end=$((SECONDS + 120))
  while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $end ]; do
    if compgen -G "$glob" >/dev/null; then
      kill -s "$sig" "$pid"
      return 0
    fi
    read -r -t 0.001 -u "$tick" || true
  done
  return 1
}
# signal_during SIG WHAT GLOB CMD...: runs CMD, sends SIG as soon as a file
# matching GLOB (its temporary) exists, expects death by SIG. Retried if tok
# wins the race; it never may on all tries.
signal_during() {
  local sig=$1 what=$2 glob=$3 try pid seen st want
  shift 3
  want=$((128 + $(kill -l "$sig")))
  for try in 1 2 3 4 5; do
    "$@" >/dev/null 2>"$T/err" &
    pid=$! seen=0
    signal_when_created "$pid" "$glob" "$sig" && seen=1
    wait_bounded "$pid" 120 "$what, SIG$sig"; st=$?
    if [ $seen = 1 ]; then
      expect_eq "$what: exit status after SIG$sig" "$want" "$st"
      return 0
    fi
  done
  fail "$what: tok always finished before its temporary file was seen; cannot test SIG$sig"
}

# --- quantize (a 38 MB temporary in the field) under each catchable signal.
echo "old model" >"$T/q.gguf"; cp "$T/q.gguf" "$T/old.gguf"
for sig in HUP INT QUIT TERM USR1 USR2 ALRM VTALRM PROF XCPU; do
  signal_during "$sig" "quantize" "$T/q.gguf.tmp.*" "$TOK" quantize "$M" "$T/q.gguf" --type f16
  cmp -s "$T/q.gguf" "$T/old.gguf" || [ "$(head -c 4 "$T/q.gguf")" == GGUF ] ||
    fail "quantize, SIG$sig: q.gguf is neither the old file nor a model"
  cp "$T/old.gguf" "$T/q.gguf"
  no_temporaries "quantize after SIG$sig"
done
# A signal ignored when tok starts (nohup) stays ignored: tok finishes. The
# signal is sent while tok writes (its temporary exists), retried if tok
# finished first.
sent=0
for try in 1 2 3 4 5; do
  echo "old model" >"$T/q.gguf"
  (trap "" HUP; exec "$TOK" quantize "$M" "$T/q.gguf" --type f16) >/dev/null 2>"$T/err" &
  pid=$!
  signal_when_created "$pid" "$T/q.gguf.tmp.*" HUP && sent=1
  wait_bounded "$pid" 120 "quantize with SIGHUP ignored"; st=$?
  expect_eq "quantize with SIGHUP ignored: exit status (stderr: $(cat "$T/err"))" 0 "$st"
  [ "$(head -c 4 "$T/q.gguf")" == GGUF ] || fail "quantize with SIGHUP ignored did not finish"
  [ $sent = 1 ] && break
done
[ $sent = 1 ] || fail "quantize always finished before its temporary file was seen; cannot test an ignored SIGHUP"

# --- train -o: the pair is old+old or new+new, at any moment of SIGINT.
big="$T/corpus.txt"
for _ in 1 2 3 4 5 6 7 8; do cat "$S"; done >"$big"
"$TOK" train "$big" --vocab-size 600 -o "$T/new" -q || fail "train"
echo "old tiktoken" >"$T/old.tiktoken"; echo "old sidecar" >"$T/old.tiktoken.json"
start=$(date +%s%N)
"$TOK" train "$big" --vocab-size 600 -o "$T/timing" -q
span=$(( ($(date +%s%N) - start) / 1000 ))  # microseconds one run takes
rm -f "$T"/timing.*
old=0 new=0
# No EXIT trap during the loop: bash 5.2 with job control, waiting for a job
# that SIGINT killed within a millisecond of its start, can run the EXIT trap
# (lib.sh's `rm -rf "$T"`) and carry on, deleting the files under test. A
# failure here leaves $T behind.
trap - EXIT
for try in $(seq 1 12); do
  cp "$T/old.tiktoken" "$T/v.tiktoken"; cp "$T/old.tiktoken.json" "$T/v.tiktoken.json"
  delay=$(( RANDOM * 32768 + RANDOM ))
  delay=$(( delay % (span + span / 4 + 1) ))
  "$TOK" train "$big" --vocab-size 600 -o "$T/v" -q 2>/dev/null &
  pid=$!
  read -r -t "$(printf '%d.%06d' $((delay / 1000000)) $((delay % 1000000)))" -u "$tick" || true
  kill -INT "$pid" 2>/dev/null
  wait_bounded "$pid" 120 "train -o, SIGINT after ${delay} us"
  if cmp -s "$T/v.tiktoken" "$T/old.tiktoken" && cmp -s "$T/v.tiktoken.json" "$T/old.tiktoken.json"; then
    old=$((old + 1))
  elif cmp -s "$T/v.tiktoken" "$T/new.tiktoken" && cmp -s "$T/v.tiktoken.json" "$T/new.tiktoken.json"; then
    new=$((new + 1))
  else
    fail "train -o, SIGINT after ${delay} us: the pair is mixed (tiktoken $(head -c 12 "$T/v.tiktoken" | tr '\n' ' '), sidecar $(head -c 12 "$T/v.tiktoken.json" | tr '\n' ' '))"
  fi
  no_temporaries "train -o, SIGINT after ${delay} us"
done
trap 'rm -rf "$T"' EXIT
echo "train -o under SIGINT: $old runs left the old pair, $new the new pair"
echo ok
