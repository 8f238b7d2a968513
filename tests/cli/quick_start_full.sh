# The README's first command on a fresh copy of the checkout: `scripts/tok
# --version` configures build/, says once that a first build takes a few
# minutes, shows a progress line per tenth (stderr is not a terminal here),
# builds only tok and the libraries it links (no tests, no Python module, no
# man page), and runs tok; run again, it builds and prints nothing more.
# The copy lies in the test's build folder, so that where ccache's base_dir
# covers it (as on CI) most compiles are cache hits.
source "$(dirname "$0")/lib.sh"

copy=$(mktemp -d "$(dirname "$TOK")/quick-start-test.XXXXXX")
trap 'rm -rf "$T" "$copy"' EXIT
# The checkout's files as they are now (tracked and new ones, not the ignored
# build folders): what a clone of this state holds.
(cd "$TOK_ROOT" && git ls-files -z --cached --others --exclude-standard |
  tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -xf - -C "$copy" ||
  fail "could not copy the checkout into $copy"
[ -x "$copy/scripts/tok" ] || fail "the copy in $copy has no scripts/tok"

(cd "$copy" && scripts/tok --version) >"$T/out" 2>"$T/err"
status=$?
[ $status = 0 ] || fail "scripts/tok --version: exit $status; stderr: $(cat "$T/err")"
expect_eq "tok's output" "$("$TOK" --version)" "$(cat "$T/out")"
expect_eq "first line" "tok: first build of build/: this takes a few minutes" "$(head -1 "$T/err")"
grep -qv '^tok: building build/ [0-9]*/[0-9]* ([0-9]*%)$' <(tail -n +2 "$T/err") &&
  fail "stderr has more than progress lines: $(cat "$T/err")"
expect_eq "progress lines" 10 "$(tail -n +2 "$T/err" | wc -l)"
expect_eq "last progress line" "(100%)" "$(tail -1 "$T/err" | grep -o '(100%)$')"

# What ninja ran (its log, less CMake's glob check) is what tok needs, all of it.
b="$copy/build"
tail -n +2 "$b/.ninja_log" | cut -f4 | grep -v 'cmake\.verify_globs$' | sort -u >"$T/built"
{ ninja -C "$b" -t inputs tok; echo tok; } | sort -u >"$T/needed"
extra=$(comm -23 "$T/built" "$T/needed")
expect_eq "built beyond tok's inputs" "" "$extra"
expect_eq "steps built" "$(ninja -C "$b" -t commands tok | wc -l)" "$(wc -l <"$T/built")"
[ "$(ninja -C "$b" -t commands all | wc -l)" -gt "$(wc -l <"$T/built")" ] ||
  fail "the whole build has no more steps than tok: the check above proves nothing"
for f in tests/test_core tok.1; do
  [ ! -e "$b/$f" ] || fail "scripts/tok built $f"
done

(cd "$copy" && scripts/tok --version) >"$T/out" 2>"$T/err"
expect_eq "second run's stderr" "" "$(cat "$T/err")"
expect_eq "second run's output" "$("$TOK" --version)" "$(cat "$T/out")"
exit 0
