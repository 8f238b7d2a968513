# Memory limits (not under sanitizers: they reserve address space).
#  - out of memory on a worker thread is one line and exit 1, never an abort;
#  - parsing a large tokenizer.json under a memory limit is refused cleanly;
#  - a piece longer than the limit in a regular file is refused within seconds
#    (a run of one ideograph too, which the encoder could otherwise cut).
source "$(dirname "$0")/lib.sh"

# exit 0 (it fitted) or 1 with exactly "tok: error: out of memory"-like line; never 134.
expect_clean() {
  "$@" >"$T/out" 2>"$T/err"; local got=$?
  [ $got == 0 ] && return
  [ $got == 1 ] || fail "$*: exit $got; stderr: $(head -c 300 "$T/err")"
  [ "$(wc -l <"$T/err")" == 1 ] || fail "$*: stderr is not one line: $(head -c 300 "$T/err")"
  grep -q '^tok: error: .*out of memory' "$T/err" || fail "$*: not an out-of-memory line: $(cat "$T/err")"
}

for i in 1 2 3; do head -c 3500000 /dev/zero | tr '\0' a >"$T/a$i"; done
expect_clean bash -c "ulimit -v 300000; exec timeout 60 '$TOK' count --threads 3 '$T/a1' '$T/a2' '$T/a3'"
expect_clean bash -c "ulimit -v 200000; exec timeout 60 '$TOK' count --threads 2 '$T/a1' '$T/a2' '$T/a3'"
for as in 122880000 200000000; do
  expect_clean prlimit --as=$as timeout 60 "$TOK" compare --no-words --threads 2
done
for as in 61440000 90000000 120000000; do
  expect_clean prlimit --as=$as timeout 60 "$TOK" vocab info -e qwen3
done

# One piece over the limit in a regular file: an error naming the file, fast.
head -c 17000000 /dev/zero | tr '\0' a >"$T/run"
expect_error 1 "run: a piece of 17000000 bytes with no pre-tokenizer boundary" timeout 30 "$TOK" count "$T/run"
# The same for a run of one ideograph, which the encoder could cut into parts.
yes 中 | tr -d '\n' | head -c 17000001 >"$T/han"
expect_error 1 "han: a piece of 17000001 bytes with no pre-tokenizer boundary" timeout 30 "$TOK" count "$T/han"
expect_error 1 "han: a piece of 17000001 bytes with no pre-tokenizer boundary" timeout 30 "$TOK" encode -e cl100k_base "$T/han"
expect_error 1 "run: a piece of 17000000 bytes with no pre-tokenizer boundary" timeout 30 "$TOK" encode --threads 2 "$T/run"
expect_error 1 "run: a piece of 17000000 bytes with no pre-tokenizer boundary" timeout 30 "$TOK" truncate --tokens 10 "$T/run"
expect_error 1 "run: a piece of 17000000 bytes with no pre-tokenizer boundary" timeout 30 "$TOK" chunk --tokens 100 "$T/run"
# Every command names the input, whichever way it reaches the encoder (the
# Tokenizer returns the error; compare, show and --chat lost the name).
long="a piece of 17000000 bytes with no pre-tokenizer boundary"
mkdir "$T/corpus"
cp "$T/run" "$T/corpus/run"
printf 'hello world\n' >"$T/corpus/en"
for args in "compare -e o200k_base" "compare --no-words --no-composition -e cl100k_base" "count --threads 2" \
            "encode --tokens" "encode --threads 2" "show" "show -e o200k_base -e cl100k_base"; do
  what="$T/corpus/run"
  [[ $args == compare* ]] && what="$T/corpus"
  # show names the vocabulary too (it may show two)
  expect_error 1 "^tok: error: $T/corpus/run: ([a-z0-9_]+: )?$long" timeout 60 "$TOK" $args "$what"
done
/usr/bin/python3 -c 'import json, sys; json.dump([{"role": "user", "content": "a" * 17000000}], open(sys.argv[1], "w"))' "$T/chat.json"
expect_error 1 "^tok: error: $T/chat.json: $long" timeout 60 "$TOK" count --chat "$T/chat.json"
expect_error 1 "^tok: error: $T/chat.json: $long" timeout 60 "$TOK" count -m gpt-4o --chat "$T/chat.json"
expect_error 1 "^tok: error: <stdin>: $long" timeout 60 "$TOK" count --chat - <"$T/chat.json"
exit 0
