#!/usr/bin/env bash
# No command writes over its own input, or writes two outputs to one file
# (issue 42 item 11): every command that writes files refuses, before it
# reads or writes anything, an output that is an input (the same file through
# a symbolic or hard link, or stdin redirected from it) or another output,
# with one line "tok: error: OUT: is also an input; write to another file"
# (or "another output") and exit 2. The input is left as it was.
source "$(dirname "$0")/lib.sh"
M="$TOK_ROOT/vocab/tok-tiny-bible.gguf"
S="$TOK_TEST_DATA/train/sample.txt"
printf '%s\n' '{"text":"Hello world"}' '{"text":"second document"}' >"$T/d.jsonl"
cp "$T/d.jsonl" "$T/d.orig"
cp "$S" "$T/s.txt"; cp "$S" "$T/s.orig"

# refused WHAT FILE ORIGINAL PATTERN CMD...: exit 2 with PATTERN, FILE unchanged, no temporary.
refused() {
  local what=$1 file=$2 orig=$3 pat=$4
  shift 4
  expect_error 2 "^tok: error: $pat" "$@"
  cmp -s "$file" "$orig" || fail "$what: $file was changed"
  [ -z "$(find "$T" -name '*.tmp.*')" ] || fail "$what: temporary files left: $(find "$T" -name '*.tmp.*')"
}
input="is also an input"
other="is also another output"

# encode --jsonl: -o and --index against the dataset, each other and the vocabulary.
refused "encode -o input" "$T/d.jsonl" "$T/d.orig" "$T/d.jsonl: $input; write to another file" \
  "$TOK" encode --jsonl text "$T/d.jsonl" -o "$T/d.jsonl"
refused "encode --index input" "$T/d.jsonl" "$T/d.orig" "$T/d.jsonl: $input" \
  "$TOK" encode --jsonl text "$T/d.jsonl" -o "$T/ids.u32" --index "$T/d.jsonl"
refused "encode -o X --index X (new)" "$T/d.jsonl" "$T/d.orig" "$T/x.u32: $other; write to another file" \
  "$TOK" encode --jsonl text "$T/d.jsonl" -o "$T/x.u32" --index "$T/x.u32"
[ -e "$T/x.u32" ] && fail "a refused run created its output"
refused "encode -o X --index ./X (new)" "$T/d.jsonl" "$T/d.orig" "$T/x.u32: $other \\($T/\\./x\\.u32\\)" \
  "$TOK" encode --jsonl text "$T/d.jsonl" -o "$T/./x.u32" --index "$T/x.u32"
ln "$T/d.jsonl" "$T/hard.jsonl"; ln -s "$T/d.jsonl" "$T/soft.jsonl"
refused "encode -o hard link" "$T/d.jsonl" "$T/d.orig" "$T/hard.jsonl: $input \\($T/d.jsonl\\)" \
  "$TOK" encode --jsonl text "$T/d.jsonl" -o "$T/hard.jsonl"
refused "encode -o symbolic link" "$T/d.jsonl" "$T/d.orig" "$T/soft.jsonl: $input" \
  "$TOK" encode --jsonl text "$T/d.jsonl" -o "$T/soft.jsonl"
refused "encode -o stdin's file" "$T/d.jsonl" "$T/d.orig" "$T/d.jsonl: $input \\(<stdin>\\)" \
  bash -c 'exec "$0" encode --jsonl text -o "$1" <"$1"' "$TOK" "$T/d.jsonl"
cp "$TOK_ROOT/vocab/r50k_base.tiktoken" "$T/v.tiktoken"; cp "$T/v.tiktoken" "$T/v.orig"
refused "encode -o vocabulary" "$T/v.tiktoken" "$T/v.orig" "$T/v.tiktoken: $input" \
  "$TOK" encode --jsonl text -e "$T/v.tiktoken" "$T/d.jsonl" -o "$T/v.tiktoken"
# Devices may be named twice; distinct files are fine.
expect_status 0 "$TOK" encode --jsonl text "$T/d.jsonl" -o /dev/null --index /dev/null
expect_status 0 "$TOK" encode --jsonl text "$T/d.jsonl" -o "$T/ids.u32" --index "$T/ids.idx"

# train: --save-counts and the vocabulary files against the corpus and tables.
refused "train --save-counts input" "$T/s.txt" "$T/s.orig" "$T/s.txt: $input" \
  "$TOK" train -q --save-counts "$T/s.txt" "$T/s.txt"
refused "train --jsonl --save-counts input" "$T/d.jsonl" "$T/d.orig" "$T/d.jsonl: $input" \
  "$TOK" train -q --jsonl text --save-counts "$T/d.jsonl" "$T/d.jsonl"
cp "$T/s.txt" "$T/v2.tiktoken"
refused "train -o over the corpus" "$T/v2.tiktoken" "$T/s.orig" "$T/v2.tiktoken: $input" \
  "$TOK" train -q --vocab-size 300 -o "$T/v2" "$T/v2.tiktoken"
"$TOK" train -q --save-counts "$T/c.counts" "$T/s.txt" || fail "train --save-counts"
cp "$T/c.counts" "$T/c.orig"
refused "train --from-counts table as output" "$T/c.counts" "$T/c.orig" "$T/c.counts: $input" \
  "$TOK" train -q --from-counts "$T/c.counts" --vocab-size 300 -o "$T/v3" --save-counts "$T/c.counts"
refused "train --save-counts over an output" "$T/s.txt" "$T/s.orig" "$T/v4.tiktoken: $other" \
  "$TOK" train -q --vocab-size 300 -o "$T/v4" --save-counts "$T/v4.tiktoken" "$T/s.txt"
# A file found by walking a directory counts too (checked once the walk is done).
mkdir "$T/corpus"; cp "$S" "$T/corpus/a.txt"
"$TOK" train -q --save-counts "$T/corpus/c.counts" "$T/corpus/a.txt" || fail "train --save-counts"
cp "$T/corpus/c.counts" "$T/cc.orig"
refused "train DIR --save-counts DIR/FILE" "$T/corpus/c.counts" "$T/cc.orig" "$T/corpus/c.counts: $input" \
  "$TOK" train -q --save-counts "$T/corpus/c.counts" "$T/corpus"

# quantize IN OUT, show --html, compare --svg/--html, generate --attn-*.
cp "$M" "$T/m.gguf"; cp "$M" "$T/m.orig"
refused "quantize IN IN" "$T/m.gguf" "$T/m.orig" "$T/m.gguf: $input" "$TOK" quantize "$T/m.gguf" "$T/m.gguf" --type f16
ln "$T/m.gguf" "$T/m2.gguf"
refused "quantize IN hard-link" "$T/m.gguf" "$T/m.orig" "$T/m2.gguf: $input" "$TOK" quantize "$T/m.gguf" "$T/m2.gguf"
refused "show --html input" "$T/s.txt" "$T/s.orig" "$T/s.txt: $input" "$TOK" show --html "$T/s.txt" "$T/s.txt"
mkdir "$T/par"
printf 'The river is beautiful.\n' >"$T/par/en.txt"; cp "$T/par/en.txt" "$T/en.orig"
printf 'Река красивая.\n' >"$T/par/ru.txt"
refused "compare --html over a sample" "$T/par/en.txt" "$T/en.orig" "$T/par/en.txt: $input" \
  "$TOK" compare -q -e cl100k_base --no-composition --html "$T/par/en.txt" "$T/par"
refused "compare --svg X --html X" "$T/par/en.txt" "$T/en.orig" "$T/r.html: $other" \
  "$TOK" compare -q -e cl100k_base --no-composition --svg "$T/r.html" --html "$T/r.html" "$T/par"
refused "generate --attn-report over the model" "$T/m.gguf" "$T/m.orig" "$T/m.gguf: $input" \
  "$TOK" generate -m "$T/m.gguf" -n 0 --attn-report "$T/m.gguf" "In the beginning God created"
refused "generate --attn-svg X --attn-report X" "$T/m.gguf" "$T/m.orig" "$T/a.json: $other" \
  "$TOK" generate -m "$T/m.gguf" -n 0 --attn-report "$T/a.json" --attn-svg "$T/a.json" "In the beginning God created"
echo ok
