#!/usr/bin/env bash
# Every benchmark in scripts/bench runs once, on tiny inputs with its smallest
# settings, and exits 0: a benchmark broken by a change fails here, not months
# later when someone needs its figures. The figures are not checked (the
# benchmarks check their own ids and totals). A benchmark without a line in
# the table below fails the test, so a new one gets a smoke run. The npm peers
# and the Python module are installed by scripts/test --full before the tests;
# any that are missing are named, and the benchmarks needing them fail.
source "$(dirname "$0")/lib.sh"
root=$TOK_ROOT
B=$root/scripts/bench
model=$root/vocab/tok-tiny-bible.gguf
npm="${XDG_CACHE_HOME:-$HOME/.cache}/tok/npm/node_modules"
head -c 3000 "$root/vocab/samples/en.txt" >"$T/text.txt"
mkdir -p "$T/corpus"  # compare's own corpus takes minutes to gather, whatever its size
cp "$root"/vocab/samples/{en,de,ja}.txt "$T/corpus/"
export TOK

# need WHAT...: the npm packages (or "python-module", built if missing) a benchmark needs;
# prints the missing ones. (scripts/bench/quicktok names its own: the
# quicktok tarball of the shared peers folder.)
need() {
  local p missing=()
  for p in "$@"; do
    case $p in
      # Built here if no other test has built it yet (scripts/python takes a
      # lock, so a parallel Python test waits rather than racing it).
      python-module) "$root/scripts/python" >/dev/null 2>&1 ||
        missing+=("the Python module (scripts/python failed)") ;;
      *) [ -d "$npm/$p" ] || missing+=("npm $p (scripts/peers)") ;;
    esac
  done
  [ ${#missing[@]} -eq 0 ] || echo "${missing[*]}"
}

# NAME | peers it needs | its arguments (tiny inputs, one run).
table=(
  "make-corpus||1"
  "compare||--corpus $T/corpus"
  "count|@anysphere/tiktoken-node tokenizers|1 20"
  "encode|@anysphere/tiktoken-node|--reps 1 --mb 1 --native-only o200k_base"
  "encode-threads||--rounds 1 --mb 1 --threads 2 o200k_base"
  "jsonl||--mb 1 --reps 1"
  "python|@anysphere/tiktoken-node python-module|--reps 1 --mb 1 o200k_base"
  "quicktok||"
  "train|tokenizers|--quick --mb 1"
  "batch||--prompts 2 --gen 2 --runs 1"
  "generate|node-llama-cpp|--quick --runs 1 --gen 2 --threads 1 --types f32 --prompts ="
  "decode-cpu-time|node-llama-cpp|--gen 2 --rounds 1 $model"
  "prefill-cpu-time||--prompt-tokens 16 --rounds 1 $model"
  "kv-sweep||--text $T/text.txt --max-chars 1500 --sweep-chars 400 --windows 16 --blocks 16 --types f32 --runs 1 --gen-tokens 4"
)

# The benchmarks: the executables in scripts/bench (its other files, *.cjs,
# *.js, *.py, *.cpp, are run or built by the benchmark that names them).
benches=()
for f in "$B"/*; do
  [ -f "$f" ] && [ -x "$f" ] && benches+=("${f##*/}")
done
[ ${#benches[@]} -gt 0 ] || fail "no benchmarks in $B"
failed=()
for b in "${benches[@]}"; do
  line=""
  for l in "${table[@]}"; do [ "${l%%|*}" = "$b" ] && line=$l; done
  [ -n "$line" ] || { failed+=("$b: no smoke run in tests/cli/bench_smoke_full.sh; add one"); continue; }
  rest=${line#*|}; deps=${rest%%|*}; args=${rest#*|}
  missing=$(need $deps)
  if [ -n "$missing" ]; then
    failed+=("$b: missing $missing")
    continue
  fi
  # "--prompts =" stands for an empty argument (no prefill table).
  read -r -a argv <<<"$args"
  for i in "${!argv[@]}"; do [ "${argv[$i]}" = "=" ] && argv[$i]=""; done
  start=$SECONDS
  if timeout 180 "$B/$b" "${argv[@]}" >"$T/$b.out" 2>"$T/$b.err" </dev/null; then
    echo "$b: ok ($((SECONDS - start)) s)"
  else
    st=$?
    echo "--- $b ${argv[*]}: exit $st; its last output:"
    tail -n 15 "$T/$b.out" "$T/$b.err"
    failed+=("$b: exit $st")
  fi
done
# The non-Latin slice's parts, each alone (--slice nonlatin-th, ...), are
# the slice cut in five: back to back they are its bytes.
whole=$("$B/make-corpus" 1 nonlatin 2>"$T/slice.err") || failed+=("make-corpus 1 nonlatin: $(tail -n 1 "$T/slice.err")")
parts=()
for p in cjk ko th hi ar; do
  if part=$("$B/make-corpus" 1 "nonlatin-$p" 2>"$T/slice.err"); then
    parts+=("$part")
  else
    failed+=("make-corpus 1 nonlatin-$p: $(tail -n 1 "$T/slice.err")")
  fi
done
if [ -n "${whole:-}" ] && [ ${#parts[@]} -eq 5 ] && ! cat "${parts[@]}" | cmp -s - "$whole"; then
  failed+=("make-corpus: the nonlatin-* parts do not make up the nonlatin slice")
fi
if [ ${#failed[@]} -gt 0 ]; then
  printf '  %s\n' "${failed[@]}" >&2
  fail "${#failed[@]} of ${#benches[@]} benchmarks failed"
fi
echo ok
