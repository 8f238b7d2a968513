#!/usr/bin/env bash
# tok train --format hf: the exported tokenizer.json, loaded by Hugging Face
# tokenizers (npm, native), gives exactly the ids of `tok encode` with the
# trained .tiktoken, for several patterns, with a special token in the text.
source "$(dirname "$0")/lib.sh"
NM="$HOME/.cache/tok/npm/node_modules"
[ -d "$NM/tokenizers" ] || fail "npm tokenizers missing in $NM (run scripts/peers)"
command -v node >/dev/null || fail "node missing (apt-get install nodejs)"

# Corpus: the test sample plus multilingual prose when Debian Reference is
# installed (it is on the test machines; printed when absent).
cp "$TOK_TEST_DATA/train/sample.txt" "$T/corpus.txt"
for l in de ja zh-cn; do
  f=/usr/share/debian-reference/debian-reference.$l.txt.gz
  if [ -f "$f" ]; then zcat "$f" | head -c 150000 >>"$T/corpus.txt"
  else echo "note: $f not installed; corpus without $l" >&2; fi
done
printf 'tail <|end|> after\n  spaces\t\ttabs   \n\n' >>"$T/corpus.txt"

cat >"$T/hf.js" <<'JS'
const { Tokenizer } = require('tokenizers');
const fs = require('fs');
(async () => {
  const tk = Tokenizer.fromFile(process.argv[2]);
  const text = fs.readFileSync(process.argv[3], 'utf8');
  const enc = await tk.encode(text, null, { addSpecialTokens: false });
  console.log(enc.getIds().join(' '));
})().catch((e) => { console.error(e); process.exit(1); });
JS

for pat in o200k cl100k gpt2; do
  expect_status 0 "$TOK" train "$T/corpus.txt" --vocab-size 3000 --pattern $pat --special-token '<|end|>' \
    --format hf -o "$T/$pat" -q
  [ -s "$T/$pat.tokenizer.json" ] || fail "$pat: no tokenizer.json"
  "$TOK" encode -e "$T/$pat.tiktoken" --special allow "$T/corpus.txt" >"$T/tok.ids" || fail "$pat: tok encode"
  NODE_PATH="$NM" node "$T/hf.js" "$T/$pat.tokenizer.json" "$T/corpus.txt" >"$T/hf.ids" || fail "$pat: HF load/encode"
  grep -q ' 2999 ' "$T/tok.ids" || fail "$pat: special token not encoded as 2999"
  cmp -s "$T/tok.ids" "$T/hf.ids" || fail "$pat: HF ids differ from tok encode: $(diff <(tr ' ' '\n' <"$T/tok.ids") <(tr ' ' '\n' <"$T/hf.ids") | head -5 | tr '\n' ' ')"
  echo "ok $pat: $(wc -w <"$T/tok.ids") ids identical"
done
exit 0
