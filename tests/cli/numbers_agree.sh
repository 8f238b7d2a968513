#!/usr/bin/env bash
# The same quantity is the same number, printed the same way, in every
# command: vocabulary sizes, KV-cache sizes, generate's token counts; names
# in column headers are never cut; rounding is said.
source "$(dirname "$0")/lib.sh"
cd "$T"

# Vocabulary size = N for ids 0..N-1, specials included: 100,277 for
# cl100k_base in vocab list, vocab info, and compare's text, JSON and HTML.
"$TOK" vocab list >list.txt
grep -qE '^cl100k_base +100277 ' list.txt || fail "vocab list: $(grep cl100k list.txt)"
"$TOK" vocab info -e cl100k_base | grep -qE '^ids +100277 \(100256 ordinary tokens, 5 special\)$' || fail "vocab info"
mkdir par && printf 'The river is beautiful.\n' >par/en.txt && printf 'Река красивая.\n' >par/ru.txt
"$TOK" compare -e mistral -e cl100k_base par >cmp.txt || fail "compare"
grep -qE '^  cl100k_base +100256 ordinary tokens of 100277 ids,' cmp.txt || fail "compare composition: $(cat cmp.txt)"
"$TOK" compare -e cl100k_base --json par | grep -q '"vocab_size": 100277' || fail "compare --json vocab_size"
"$TOK" compare -q -e cl100k_base --html page.html par || fail "compare --html"
grep -q '<b>cl100k_base</b> (100277 ids' page.html || fail "compare html: $(grep -o '<b>cl100k_base</b>[^)]*)' page.html)"
# compare's headers keep whole names (was "mistra" in the ratio table).
grep -qE '^ +\| +mistral +cl100k \| +mistral +cl100k \|' cmp.txt || fail "compare ratio header: $(cat cmp.txt)"
grep -qE '\| +mistral \| +cl100k_base$' cmp.txt || fail "compare premium header: $(cat cmp.txt)"

# KV-cache size: count --kv and show print the same bytes the same way.
printf 'In the beginning God created the heaven and the earth.\n%.0s' $(seq 40) >text.txt
kv_count=$("$TOK" count -m gpt-oss-20b --kv text.txt | grep -o 'KV cache [0-9.]* [KMG]*i*B f16' | sed 's/KV cache //; s/ f16//')
kv_show=$("$TOK" show --color never -m gpt-oss-20b text.txt | grep '^  KV cache f16 ' | sed -E 's/^  KV cache f16 +//; s/  .*//')
[ -n "$kv_count" ] || fail "no KV size in count --kv"
expect_eq "KV f16 in count --kv and show" "$kv_count" "$kv_show"
[[ "$kv_count" =~ ^[0-9]+(\.[0-9]+)?\ (B|KiB|MiB|GiB)$ ]] || fail "KV size format: $kv_count"

# generate: "context full" counts the tokens --stats counts.
"$TOK" generate --greedy --ctx 16 -n 100 --stats 'In the beginning' >/dev/null 2>err.txt || fail "generate"
gen=$(tail -1 err.txt | grep -o '"generated_tokens":[0-9]*' | cut -d: -f2)
prompt=$(tail -1 err.txt | grep -o '"prompt_tokens":[0-9]*' | cut -d: -f2)
grep -q "^tok: warning: context full: stopped after $gen generated tokens ($prompt prompt tokens; context 16; see --ctx)$" err.txt \
  || fail "context-full numbers differ from --stats ($gen, $prompt): $(cat err.txt)"
# ... and its stats JSON starts on its own line when stdout and stderr are
# one terminal (stdout's own bytes unchanged: the newline goes to stderr).
if command -v script >/dev/null; then
  script -qc "'$TOK' generate --echo -n 0 --stats hi" /dev/null >tty.txt </dev/null
  head -1 tty.txt | tr -d '\r' | grep -qx 'hi' || fail "stats JSON continues the text's line: $(head -c 80 tty.txt)"
  grep -q '^{"decode_ms"' tty.txt || fail "no stats line on the terminal: $(head -c 200 tty.txt)"
  "$TOK" generate --echo -n 0 --stats hi >out.txt 2>/dev/null
  expect_eq "stdout unchanged when redirected" "hi" "$(cat out.txt)"
else
  echo "skipped: the terminal check (script, from util-linux, not found)"
fi

# A --kv-budget between two whole blocks is rounded down, and says so.
"$TOK" generate --kv-budget 100000 -n 2 hi >/dev/null 2>err.txt || fail "generate --kv-budget"
grep -qE '^tok: warning: --kv-budget 100000 rounded down to [0-9.]+ KiB \([0-9]+ bytes: [0-9]+ blocks of [0-9]+ bytes, 16 tokens each\)$' err.txt \
  || fail "no rounding note: $(cat err.txt)"
"$TOK" generate --kv-budget 64KiB -n 2 hi >/dev/null 2>err.txt || fail "generate --kv-budget 64KiB"
grep -q "rounded" err.txt && fail "a whole number of blocks is not rounded: $(cat err.txt)"
echo ok
