#!/usr/bin/env bash
# The files compiled with ISA flags (-mavx2, -mavx512*: src/CMakeLists.txt)
# hold only code that runs after the CPU was asked: no global built by a
# constructor at startup (_GLOBAL__sub_I_*) and no weak definition of an inline
# function or template, whose AVX copy the linker may keep for every caller.
# Either runs AVX code on a CPU without it (SIGILL); tests/cli/cpu_models_full.sh
# catches that at run time on the paths it takes, this on every path.
source "$(dirname "$0")/lib.sh"
: "${TOK_ROOT:?TOK_ROOT must point at the source tree}"
command -v nm >/dev/null || fail "nm is missing (binutils)"
# check_object FILE.o [NAME]: prints what it finds, naming it NAME (the object's file name)
check_object() {
  nm -C "$1" | awk -v f="${2:-$(basename "$1")}" '
    / _GLOBAL__sub_I_/ { print f ": a global built at startup (" $NF ")" }
    /^[0-9a-f]+ [WV] / && $0 !~ /DW\.ref\.__gxx_personality_v0/ { $1 = ""; print f ": a weak definition:" $0 }'
}
objs=$(dirname "$TOK")/src/CMakeFiles
files=$(tr '\n' ' ' <"$TOK_ROOT/src/CMakeLists.txt" |
  grep -o 'set_source_files_properties([^)]*PROPERTIES *COMPILE_OPTIONS *"[^"]*-m' | grep -o '[a-z_0-9/]*\.cpp')
[ -n "$files" ] || fail "found no files with ISA flags in src/CMakeLists.txt"
n=0
for f in $files; do
  o=$(ls "$objs"/tok_*.dir/"$f".o 2>/dev/null | head -1)
  [ -n "$o" ] || fail "no object for $f under $objs"
  check_object "$o" >>"$T/found"
  n=$((n + 1))
done
[ ! -s "$T/found" ] || fail "$(cat "$T/found")"

# Which inline functions a compiler leaves out of line differs between
# compilers (clang kept std::vector's resize helper that GCC inlined), so with
# TOK_ISA_COMPILERS (tests/cli/isa_objects_compilers_full.sh) each file is also
# compiled by each compiler named there, with the build's own command line.
compilers=${TOK_ISA_COMPILERS:-}
db=$(dirname "$TOK")/compile_commands.json
[ -z "$compilers" ] || [ -f "$db" ] || fail "no $db to take the compile commands from"
for cc in $compilers; do
  command -v "$cc" >/dev/null || fail "$cc is not installed"
  for f in $files; do
    cmd=$(grep -o "\"command\": \"[^\"]*src/$f\"" "$db" | head -1 | sed 's/^"command": "//; s/"$//')
    [ -n "$cmd" ] || fail "no compile command for src/$f in $db"
    read -r -a argv <<<"$cmd"
    argv[0]=$cc
    for i in "${!argv[@]}"; do [ "${argv[$i]}" = -o ] && argv[$((i + 1))]=$T/cc.o; done
    (cd "$(dirname "$db")" && "${argv[@]}") 2>"$T/cc.err" || fail "$cc could not compile src/$f: $(head -5 "$T/cc.err")"
    check_object "$T/cc.o" "src/$f compiled by $cc" >>"$T/found"
  done
  [ ! -s "$T/found" ] || fail "$(cat "$T/found")"
done

# The check can fail: a file with both faults.
cat >"$T/bad.cpp" <<'CPP'
#include <vector>
struct Table { int v[8]; Table() { for (int i = 0; i < 8; ++i) v[i] = i * 3; } };
const Table kTable;
int use(int i) { std::vector<int> x(kTable.v, kTable.v + 8); x.push_back(i); return x[i]; }
CPP
c++ -O2 -c "$T/bad.cpp" -o "$T/bad.o" || fail "c++ could not compile the check's own example"
check_object "$T/bad.o" >"$T/bad.out"
grep -q 'built at startup' "$T/bad.out" || fail "a startup constructor was not reported: $(cat "$T/bad.out")"
grep -q 'weak definition' "$T/bad.out" || fail "a weak inline definition was not reported: $(cat "$T/bad.out")"
echo "ok: the $n files built with ISA flags have no startup constructors and no weak definitions${compilers:+ (also compiled by: $compilers)}"
