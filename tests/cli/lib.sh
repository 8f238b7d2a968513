# Helpers for command-line tests. Each test sources this, then calls the
# checks; the first failure exits 1 with what differed.
set -u
: "${TOK:?TOK must point at the tok binary}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# expect_eq WHAT EXPECTED ACTUAL
expect_eq() { [ "$2" == "$3" ] || fail "$1: expected [$2], got [$3]"; }
# expect_status CODE CMD...: runs CMD, checks its exit code; stderr in $T/err
expect_status() {
  local want=$1; shift
  "$@" >"$T/out" 2>"$T/err"; local got=$?
  [ "$got" == "$want" ] || fail "$*: exit $got, expected $want; stderr: $(cat "$T/err")"
}
# expect_error CODE PATTERN CMD...: exit CODE, stderr is one line "tok: error: ..." matching PATTERN
expect_error() {
  local want=$1 pat=$2; shift 2
  expect_status "$want" "$@"
  [ "$(wc -l <"$T/err")" == 1 ] || fail "$*: stderr is not one line: $(cat "$T/err")"
  grep -q '^tok: error: ' "$T/err" || fail "$*: stderr does not start with 'tok: error:': $(cat "$T/err")"
  grep -qE -- "$pat" "$T/err" || fail "$*: stderr does not match /$pat/: $(cat "$T/err")"
}
# sanitized: whether $TOK is a sanitizer build (build-asan/: gcc links libasan
# dynamically; clang links its runtime in). Wall-clock limits and address-space
# limits (ulimit -v) mean nothing there: ASan runs several times slower and
# reserves terabytes of address space.
sanitized() {
  ldd "$TOK" 2>/dev/null | grep -q 'lib[at]san' || grep -qa '__asan_init' "$TOK" 2>/dev/null
}
# wait_bounded PID SECONDS WHAT: `wait PID` (its status is returned) for a
# background tok, but one still running after SECONDS is a hang: its threads'
# states and kernel wait channels are printed, it is killed and the test fails,
# instead of the test (and CI with it) waiting for ever.
wait_bounded() {
  local pid=$1 limit=$2 what=$3 end=$((SECONDS + $2)) t threads=""
  while kill -0 "$pid" 2>/dev/null; do
    if [ $SECONDS -ge $end ]; then
      for t in /proc/"$pid"/task/*; do
        threads+=" [$(cat "$t/comm" 2>/dev/null) $(awk '/^State/ {print $2}' "$t/status" 2>/dev/null)"
        threads+=" $(cat "$t/wchan" 2>/dev/null) $(awk '/^SigBlk/ {print "blocked " $2}' "$t/status" 2>/dev/null)]"
      done
      kill -KILL "$pid" 2>/dev/null
      wait "$pid"
      fail "$what: tok still running after $limit s; killed. Threads:$threads"
    fi
    sleep 0.01
  done
  wait "$pid"
}
# tiktoken_suite: prints the folder of tiktoken's own test suite
# (../shared/testsuites/tiktoken beside the repository; a worktree under wt/
# sits one level deeper), or nothing when it is absent.
tiktoken_suite() {
  local d
  for d in "$TOK_ROOT/../shared" "$TOK_ROOT/../../shared"; do
    [ -d "$d/testsuites/tiktoken/tests" ] && { echo "$d/testsuites/tiktoken"; return 0; }
  done
}
