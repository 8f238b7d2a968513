# The build progress of scripts/tok and scripts/test (scripts/setup.sh):
# ninja's "[done/total]" lines reduced to one rewritten line on a terminal and
# a line per tenth otherwise; tok_build's status is the build's, not the
# filter's; and a build with nothing to do prints nothing, so `scripts/tok`
# on a built tree prints only tok's own output.
source "$(dirname "$0")/lib.sh"
source "$TOK_ROOT/scripts/setup.sh"
set +e  # setup.sh is written for scripts under set -e; the checks below want each status

# ninja_output TOTAL: what `cmake --build` prints for a TOTAL-step build after
# CMake re-ran (its own two steps and messages first), with a warning between.
ninja_output() {
  printf '[0/2] Re-checking globbed directories...\n[1/2] Re-running CMake...\n-- Configuring done\n'
  local i
  for ((i = 1; i <= $1; i++)); do
    printf '[%d/%d] Building CXX object src/x%d.cpp.o\n' "$i" "$1" "$i"
    [ "$i" = 2 ] && printf 'src/x2.cpp:1:1: warning: unused variable\n'
  done
}

# Not a terminal: one line at each further tenth, the last at 100%.
ninja_output 20 | tok_build_progress lines build/ 2>"$T/err" >"$T/out"
expect_eq "stdout of the filter" "" "$(cat "$T/out")"
expected=""
for i in 2 4 6 8 10 12 14 16 18 20; do
  expected+="tok: building build/ $i/20 ($((i * 5))%)"$'\n'
done
expect_eq "progress lines, 20 steps" "$expected" "$(cat "$T/err")"$'\n'
# Fewer steps than tenths: a line per step, each in a further tenth.
ninja_output 3 | tok_build_progress lines build/ 2>"$T/err"
expect_eq "progress lines, 3 steps" \
  "tok: building build/ 1/3 (33%)|tok: building build/ 2/3 (66%)|tok: building build/ 3/3 (100%)" \
  "$(paste -sd'|' "$T/err")"

# A terminal: the line is rewritten in place (carriage return, erase to the
# end) at every step and erased when the build ends.
ninja_output 3 | tok_build_progress tty build/ 2>"$T/err"
expected=$'\rtok: building build/ 1/3 (33%)\e[K\rtok: building build/ 2/3 (66%)\e[K'
expected+=$'\rtok: building build/ 3/3 (100%)\e[K\r\e[K'
expect_eq "terminal progress" "$(printf %q "$expected")" "$(printf %q "$(cat "$T/err")")"

# Nothing to do: nothing at all, in either mode.
for mode in tty lines; do
  printf '[0/2] Re-checking globbed directories...\nninja: no work to do.\n' |
    tok_build_progress $mode build/ 2>"$T/err"
  expect_eq "no-op build, $mode" "" "$(cat "$T/err")"
done

# tok_build with a stand-in cmake: the first build says once that it takes a
# few minutes; the log keeps ninja's whole output; a failed build fails
# tok_build (the filter after it succeeds) and prints the errors.
mkdir -p "$T/bin" "$T/b"
cat >"$T/bin/cmake" <<'EOF'
#!/bin/sh
[ "$1" = --build ] || { touch "$4/build.ninja"; echo "-- configured"; exit 0; }
printf '[1/2] Building CXX object a.o\n'
[ -n "${FAKE_BUILD_FAILS:-}" ] && { printf 'a.cpp:1:1: error: boom\nninja: build stopped\n'; exit 1; }
printf '[2/2] Linking CXX executable tok\n'
EOF
chmod +x "$T/bin/cmake"
( PATH="$T/bin:$PATH" tok_build "$T/b" ) >"$T/out" 2>"$T/err"
expect_eq "first build status" 0 $?
expect_eq "first build stdout" "" "$(cat "$T/out")"
expect_eq "first build stderr" \
  "tok: first build of $T/b/: this takes a few minutes|tok: building $T/b/ 1/2 (50%)|tok: building $T/b/ 2/2 (100%)" \
  "$(paste -sd'|' "$T/err")"
expect_eq "build log" "[1/2] Building CXX object a.o|[2/2] Linking CXX executable tok" \
  "$(paste -sd'|' "$T/b.log")"
( PATH="$T/bin:$PATH" FAKE_BUILD_FAILS=1 tok_build "$T/b" ) >"$T/out" 2>"$T/err"
expect_eq "failed build status" 1 $?
expect_eq "failed build stderr" \
  "tok: building $T/b/ 1/2 (50%)|a.cpp:1:1: error: boom|ninja: build stopped|tok: error: build failed ($T/b; full log: $T/b.log)" \
  "$(paste -sd'|' "$T/err")"

# The real build this test belongs to, already built: building tok again does
# nothing and prints nothing; in build/, scripts/tok prints only tok's output.
dir=$(dirname "$TOK")
[ -f "$dir/build.ninja" ] || fail "$dir has no build.ninja: tok_build needs a Ninja build"
( TOK_BUILD_TARGETS=tok tok_build "$dir" ) >"$T/out" 2>"$T/err"
expect_eq "no-op build status" 0 $?
expect_eq "no-op build output" "" "$(cat "$T/out" "$T/err")"
if [ "$TOK" = "$TOK_ROOT/build/tok" ]; then
  "$TOK_ROOT/scripts/tok" --version >"$T/out" 2>"$T/err"
  expect_eq "scripts/tok --version status" 0 $?
  expect_eq "scripts/tok --version stdout" "$("$TOK" --version)" "$(cat "$T/out")"
  expect_eq "scripts/tok --version stderr" "" "$(cat "$T/err")"
fi
exit 0
