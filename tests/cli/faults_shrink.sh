#!/usr/bin/env bash
# An input that shrinks while tok reads it (truncate, a rotated log) must not
# kill tok with SIGBUS: the result is one line naming the file, status 1 (or,
# had tok read it all before it shrank, the count of the whole file). The
# file is truncated as soon as tok has mapped it, so the shrink happens
# during the read, not by luck of timing.
source "$(dirname "$0")/lib.sh"
yes 'the quick brown fox jumps over the lazy dog, again and again' | head -c 30000000 >"$T/src.txt"
whole=$("$TOK" count -q --threads 1 "$T/src.txt") || fail "count of the whole file"
exec {tick}<> <(:)  # `read -t` on it: a sleep without a process per poll
errors=0 counted=0
for try in 1 2 3; do
  cp "$T/src.txt" "$T/log.txt"
  "$TOK" count -q --threads 1 "$T/log.txt" >"$T/out" 2>"$T/err" &
  pid=$!
  # Wait (bounded) until the file is in tok's memory map, then shrink it.
  mapped=0 end=$((SECONDS + 60))
  while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $end ]; do
    if grep -qF "$T/log.txt" "/proc/$pid/maps" 2>/dev/null; then mapped=1; break; fi
    read -r -t 0.001 -u "$tick" || true
  done
  truncate -s 1000 "$T/log.txt"
  wait_bounded "$pid" 120 "count of a shrinking input"; st=$?
  if [ $st -gt 128 ]; then
    fail "count died of signal $((st - 128)) when its input shrank"
  elif [ $st == 1 ]; then
    expect_eq "one line on stderr" 1 "$(wc -l <"$T/err")"
    grep -qE "^tok: error: $T/log\.txt: the file shrank while tok read it" "$T/err" ||
      fail "shrunk input: unexpected error: $(cat "$T/err")"
    errors=$((errors + 1))
  else
    expect_eq "status (stderr: $(cat "$T/err"))" 0 "$st"
    # Not a count of zeros read past the new end: the whole file's.
    expect_eq "count of an input that shrank after it was read (mapped seen: $mapped)" "$whole" "$(cat "$T/out")"
    counted=$((counted + 1))
  fi
done
echo "shrinking input: $errors clean errors, $counted counts"
[ $errors -gt 0 ] || fail "tok read the whole file before it shrank on every try: the shrink was never tested"
echo ok
