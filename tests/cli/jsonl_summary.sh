# encode --jsonl: a document quoting a special token is encoded as text by
# default (as nanoGPT's encode_ordinary, Megatron and datasets.map do) and
# counted on stderr; every run ends with one summary line (or --stats' JSON
# line), -q silences it.
source "$(dirname "$0")/lib.sh"
printf '%s\n' '{"text":"a"}' '{"text":"say <|endoftext|> here"}' '{"text":1}' '{"text":"b <|endoftext|>"}' \
  '{"text":"c"}' >"$T/x.jsonl"
printf '%s\n' '{"text":"a"}' '{"text":"say <|endoftext|> here"}' '{"text":"b <|endoftext|>"}' '{"text":"c"}' \
  >"$T/good.jsonl"

# The default is --special text: the same ids as asking for it.
"$TOK" encode --jsonl text "$T/good.jsonl" >"$T/default" 2>"$T/err" || fail "default refused: $(cat "$T/err")"
"$TOK" encode --jsonl text --special text "$T/good.jsonl" >"$T/text" 2>/dev/null
cmp -s "$T/default" "$T/text" || fail "the --jsonl default is not --special text"
expect_eq "quoted special as text" "$("$TOK" encode --special text -t 'say <|endoftext|> here')" "$(sed -n 2p "$T/default")"
expect_eq "stderr lines" 1 "$(wc -l <"$T/err")"
grep -qE '^tok: encode: 4 documents, [0-9]+ tokens, 0 skipped, 2 quoting special tokens \(encoded as text; --special error refuses them\); .* in [0-9.]+ s \([0-9.]+ MB/s\)$' "$T/err" ||
  fail "summary: $(cat "$T/err")"
# Plain encode keeps tiktoken's refusal; --special error and --allow-special still apply to --jsonl.
expect_error 1 "special token <\|endoftext\|>" "$TOK" encode -t 'say <|endoftext|>'
expect_error 1 "good.jsonl:2: .*<\|endoftext\|>.*--special text" "$TOK" encode --jsonl text --special error "$T/good.jsonl"
expect_eq "--allow-special" "50256" "$("$TOK" encode -e gpt2 --jsonl text --allow-special "$T/good.jsonl" 2>/dev/null | sed -n 3p | awk '{print $NF}')"

# Skipped lines are counted in the summary beside the warning.
"$TOK" encode --jsonl text --skip-bad "$T/x.jsonl" >/dev/null 2>"$T/err" || fail "skip-bad: $(cat "$T/err")"
grep -q "^tok: warning: skipped 1 bad line (first: .*x.jsonl:3: " "$T/err" || fail "warning: $(cat "$T/err")"
grep -q "^tok: encode: 4 documents, .* 1 skipped, 2 quoting special tokens" "$T/err" || fail "skip summary: $(cat "$T/err")"

# -q: nothing on stderr; --stats: one JSON line with the dataset's counts.
"$TOK" encode --jsonl text -q "$T/good.jsonl" >/dev/null 2>"$T/err" || fail "-q failed"
[ -s "$T/err" ] && fail "-q printed: $(cat "$T/err")"
"$TOK" encode --jsonl text --stats -o "$T/ids.u32" "$T/good.jsonl" 2>"$T/err" || fail "--stats: $(cat "$T/err")"
expect_eq "--stats lines" 1 "$(wc -l <"$T/err")"
/usr/bin/env python3 - "$T/err" "$(( $(wc -c <"$T/ids.u32") / 4 ))" "$(wc -c <"$T/good.jsonl")" <<'PY' || fail "--stats: $(cat "$T/err")"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["encoding"] == "o200k_base", s
assert (s["documents"], s["skipped"], s["special_as_text"]) == (4, 0, 2), s
assert s["tokens"] == int(sys.argv[2]) and s["bytes"] == int(sys.argv[3]), s
assert s["text_bytes"] == len("a" "say <|endoftext|> here" "b <|endoftext|>" "c"), s
for k in ("load_ms", "encode_ms", "encode_mb_per_s", "threads"):
    assert k in s, k
PY
expect_error 2 "need --jsonl" "$TOK" encode -q -t hi

# train --jsonl's summary counts documents and skipped lines too.
"$TOK" train --jsonl text --skip-bad --save-counts "$T/x.counts" "$T/x.jsonl" 2>"$T/err" || fail "train: $(cat "$T/err")"
grep -q "^tok: train: .* read (4 documents, 1 bad lines skipped), " "$T/err" || fail "train summary: $(cat "$T/err")"
echo ok
