# Names reach the terminal escaped, in every command (issue 42 item 19): file
# names, TSV header cells, vocabulary names, catalog model ids, directory
# entries hold ESC sequences (window title, clear screen), BEL, CR, a C1
# control (U+009B, CSI to some terminals) and bytes that are not UTF-8. Every
# command's stdout and stderr is checked for raw control bytes (newline and
# tab only as structure), raw C1 controls and invalid UTF-8: each name goes
# through the one terminal escaper (text::escape_terminal).
source "$(dirname "$0")/lib.sh"
M="$TOK_ROOT/vocab/tok-tiny-bible.gguf"
evil=$(printf 'x\033]0;owned\007y\033[2Jz\rw\302\233q\377\233e')
# check WHAT: $T/out and $T/err hold no raw control byte but \n and \t, no C1
# control and only valid UTF-8.
check() {
  /usr/bin/python3 - "$1" "$T/out" "$T/err" <<'PY' || fail "$1: a raw control byte or invalid UTF-8 reached the terminal: $(cat -v "$T/out" "$T/err" | head -20)"
import re, sys
what = sys.argv[1]
for path in sys.argv[2:]:
    b = open(path, "rb").read()
    try:
        s = b.decode("utf-8")
    except UnicodeDecodeError as e:
        sys.exit(f"{what}: {path}: not UTF-8 at byte {e.start}")
    bad = re.search(r"[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]", s)
    if bad:
        sys.exit(f"{what}: {path}: raw U+{ord(bad.group()):04X} at {bad.start()}")
PY
}
# run WHAT CMD...: runs CMD (any status), then checks its output.
run() {
  local what=$1; shift
  "$@" >"$T/out" 2>"$T/err"
  check "$what"
}
# run_ok WHAT CMD...: the same, and CMD must succeed.
run_ok() {
  local what=$1; shift
  "$@" >"$T/out" 2>"$T/err" || fail "$what: $* failed: $(cat -v "$T/err")"
  check "$what"
}

mkdir -p "$T/dir" "$T/par"
printf 'hello world\n' >"$T/dir/$evil.txt"
printf '\000\001binary' >"$T/dir/$evil.bin"
printf 'The river is beautiful.\n' >"$T/par/en.txt"
printf 'Река красивая.\n' >"$T/par/$evil.txt"
printf 'en\t%s\nThe river is beautiful.\tРека красивая.\n' "$evil" >"$T/par.tsv"
cp "$T/par.tsv" "$T/$evil.tsv"
cp "$TOK_ROOT/vocab/cl100k_base.tiktoken" "$T/$evil.tiktoken"
cat >"$T/models.json" <<JSON
{"models": [{"id": "m-$(printf '\\u001b]0;t\\u0007\\u009b2J\\r')", "provider": "p$(printf '\\u001b[2J')",
  "tokenizer": "cl100k_base", "context_window": 1000, "max_output": 100,
  "price": {"input_per_mtok": 1, "output_per_mtok": 2, "date": "2025-01-01", "source": "s$(printf '\\u0007')"}}]}
JSON
printf '[{"role":"user","content":"hi"}]' >"$T/chat.json"

run_ok "count a file" "$TOK" count "$T/dir/$evil.txt"
run_ok "count a directory" "$TOK" count "$T/dir"
run_ok "count --csv" "$TOK" count --csv "$T/dir/$evil.txt" "$T/dir"
run_ok "count -e FILE" "$TOK" count -e "$T/$evil.tiktoken" "$T/dir/$evil.txt"
run_ok "count -m (catalog id)" "$TOK" count --models "$T/models.json" -m "$(printf 'm-\033]0;t\007\302\2332J\r')" "$T/dir/$evil.txt"
run_ok "models" "$TOK" models --models "$T/models.json"
run "count a missing file" "$TOK" count "$T/no-$evil"
run_ok "compare a directory" "$TOK" compare -e cl100k_base --no-composition "$T/par"
run_ok "compare a TSV" "$TOK" compare -e cl100k_base --no-composition "$T/par.tsv"
run_ok "compare a TSV named evil" "$TOK" compare -e cl100k_base --no-composition "$T/$evil.tsv"
run_ok "compare --csv" "$TOK" compare -e cl100k_base --no-composition --csv "$T/$evil.tsv"
run_ok "compare -e FILE" "$TOK" compare -e "$T/$evil.tiktoken" --no-words "$T/par"
run "compare --baseline" "$TOK" compare -e cl100k_base --baseline "$evil" "$T/par.tsv"
run_ok "encode --stats" "$TOK" encode --stats -e "$T/$evil.tiktoken" "$T/dir/$evil.txt"
run "encode a missing file" "$TOK" encode "$T/no-$evil"
run_ok "show" "$TOK" show -e "$T/$evil.tiktoken" "$T/dir/$evil.txt"
run_ok "show two vocabularies" "$TOK" show -e "$T/$evil.tiktoken" -e cl100k_base "$T/dir/$evil.txt"
run_ok "vocab info" "$TOK" vocab info -e "$T/$evil.tiktoken"
run_ok "chunk" "$TOK" chunk -n 2 "$T/dir/$evil.txt"
run_ok "truncate" "$TOK" truncate -n 2 "$T/dir/$evil.txt"
run_ok "train (a binary file skipped)" "$TOK" train --vocab-size 260 -o "$T/v.tiktoken" "$T/dir"
run "train a missing file" "$TOK" train --vocab-size 260 -o "$T/v.tiktoken" "$T/no-$evil"
run "decode a missing file" "$TOK" decode "$T/no-$evil"
run_ok "score" "$TOK" score -m "$M" "$T/dir/$evil.txt"
run "generate -m missing" "$TOK" generate -m "$T/no-$evil.gguf" hi
run_ok "quantize to an evil name" "$TOK" quantize "$M" "$T/$evil.gguf" --type q8_0
run "usage error" "$TOK" count --special "$evil" "$T/dir/$evil.txt"
run "unknown encoding" "$TOK" count -e "$evil" "$T/dir/$evil.txt"
echo "ok: no raw control byte from any command"
