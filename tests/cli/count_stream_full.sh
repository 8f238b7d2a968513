#!/usr/bin/env bash
# Bounded memory on unbounded stdin: 512 MB of random bytes and 512 MB of
# text through a pipe must peak well under 200 MB (the brief's
# `head -c 2G /dev/urandom | tok count` at a quarter of the size), with the
# same count as the mapped file.
source "$(dirname "$0")/lib.sh"
[ -x /usr/bin/time ] || { apt-get install -y -qq time >/dev/null 2>&1 || fail "/usr/bin/time missing (apt-get install time)"; }
check() {  # check NAME FILE
  local want got peak
  want=$("$TOK" count -q "$2")
  got=$(cat "$2" | /usr/bin/time -v "$TOK" count -q 2>"$T/time")
  peak=$(awk '/Maximum resident set size/ {print $6}' "$T/time")
  expect_eq "$1 count through a pipe" "$want" "$got"
  [ "$peak" -lt 204800 ] || fail "$1: peak RSS ${peak} KB on stdin, expected < 200 MB"
  echo "$1: $got tokens, peak RSS $((peak / 1024)) MB"
}
head -c 512M /dev/urandom >"$T/random.bin"
check random "$T/random.bin"
rm "$T/random.bin"
seed=$(find /usr/include -name '*.h' -size -200k | sort | head -2000 | xargs cat)
while [ "$(stat -c %s "$T/text.txt" 2>/dev/null || echo 0)" -lt $((512 << 20)) ]; do printf '%s' "$seed" >>"$T/text.txt"; done
check text "$T/text.txt"
echo ok
