#!/usr/bin/env bash
# An input that shrinks while tok reads it (truncate, a rotated log) must not
# kill tok with SIGBUS: the result is either a count of what was there or one
# line naming the file, status 1.
source "$(dirname "$0")/lib.sh"
yes 'the quick brown fox jumps over the lazy dog, again and again' | head -c 30000000 >"$T/src.txt"
crashed=0 errors=0 counted=0
for delay in 0.02 0.05 0.1 0.2 0.4; do
  cp "$T/src.txt" "$T/log.txt"
  "$TOK" count -q --threads 1 "$T/log.txt" >"$T/out" 2>"$T/err" &
  pid=$!
  sleep "$delay"
  truncate -s 1000 "$T/log.txt"
  wait_bounded "$pid" 120 "count of a shrinking input"; st=$?
  if [ $st -gt 128 ]; then
    fail "count died of signal $((st - 128)) when its input shrank after ${delay}s"
  elif [ $st == 1 ]; then
    expect_eq "one line on stderr" 1 "$(wc -l <"$T/err")"
    grep -qE "^tok: error: $T/log\.txt: the file shrank while tok read it" "$T/err" ||
      fail "shrunk input: unexpected error: $(cat "$T/err")"
    errors=$((errors + 1))
  else
    expect_eq "status" 0 "$st"
    counted=$((counted + 1))
  fi
done
echo "shrinking input: $errors clean errors, $counted counts"
echo ok
