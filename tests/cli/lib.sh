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
