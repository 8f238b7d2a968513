#!/usr/bin/env bash
# An input that shrinks while tok reads it (truncate, a rotated log) must not
# kill tok with SIGBUS: the result is one line naming the file, status 1 (or,
# had tok read it all before it shrank, the count of the whole file). The
# file is truncated as soon as tok has mapped it, so the shrink happens
# during the read, not by luck of timing. Plain text (count) and JSONL
# (encode --jsonl, which maps a regular file too) alike.
source "$(dirname "$0")/lib.sh"
yes 'the quick brown fox jumps over the lazy dog, again and again' | head -c 30000000 >"$T/src.txt"
yes '{"id":1,"text":"the quick brown fox jumps over the lazy dog, again and again"}' |
  head -n 380000 >"$T/src.jsonl"
exec {tick}<> <(:)  # `read -t` on it: a sleep without a process per poll

# shrinking SUFFIX WHAT ARGS...: tok ARGS... FILE on a copy of $T/src.SUFFIX
# truncated once tok has mapped it, three times.
shrinking() {
  local suffix=$1 what=$2 log="$T/log.$1"
  shift 2
  local whole errors=0 counted=0 try pid mapped end st
  whole=$("$TOK" "$@" "$T/src.$suffix" | cksum) || fail "$what of the whole file"
  for try in 1 2 3; do
    cp "$T/src.$suffix" "$log"
    "$TOK" "$@" "$log" >"$T/out" 2>"$T/err" &
    pid=$!
    # Wait (bounded) until the file is in tok's memory map, then shrink it.
    mapped=0 end=$((SECONDS + 60))
    while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $end ]; do
      if grep -qF "$log" "/proc/$pid/maps" 2>/dev/null; then mapped=1; break; fi
      read -r -t 0.001 -u "$tick" || true
    done
    truncate -s 1000 "$log"
    wait_bounded "$pid" 120 "$what of a shrinking input"; st=$?
    if [ $st -gt 128 ]; then
      fail "$what died of signal $((st - 128)) when its input shrank"
    elif [ $st == 1 ]; then
      expect_eq "$what: one line on stderr" 1 "$(wc -l <"$T/err")"
      case "$(cat "$T/err")" in
        "tok: error: $log: the file shrank while tok read it"*) ;;
        *) fail "$what: shrunk input: unexpected error: $(cat "$T/err")" ;;
      esac
      errors=$((errors + 1))
    else
      expect_eq "$what: status (stderr: $(cat "$T/err"))" 0 "$st"
      # Not a result of zeros read past the new end: the whole file's.
      expect_eq "$what of an input that shrank after it was read (mapped seen: $mapped)" "$whole" "$(cksum <"$T/out")"
      counted=$((counted + 1))
    fi
  done
  echo "$what, shrinking input: $errors clean errors, $counted whole results"
  [ $errors -gt 0 ] || fail "$what: tok read the whole file before it shrank on every try: the shrink was never tested"
}
shrinking txt count count -q --threads 1
shrinking jsonl "encode --jsonl" encode --jsonl text -q --threads 1 --format u32
echo ok
