# `tok compare -m` and `tok count -m` resolve a model through the one catalog
# (cost::Catalog): the same id gives the same tokenizer, token count and
# input price; the user catalog and --models work in both; an unknown or
# broken one is the same error in both.
source "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || fail "python3 is needed to read the JSON"
export XDG_CONFIG_HOME="$T/cfg"
mkdir -p "$T/par" "$T/cfg/tok"
printf 'The river is beautiful.\n' >"$T/par/en.txt"
printf 'Река красивая, и горы тоже.\n' >"$T/par/ru.txt"
printf '{"models": [{"id": "mine", "tokenizer": "r50k_base", "price": {"input": 7.25}}]}\n' \
  >"$T/cfg/tok/models.json"
printf '{"models": [{"id": "extra-model", "tokenizer": "cl100k_base", "price": {"input": 0.125}}]}\n' \
  >"$T/extra.json"

# compare's priced column: its spec, price and the tokens of sample ru.
compare_view() {  # compare_view MODEL [ARGS...]
  local model=$1; shift
  "$TOK" compare --json --no-composition -e o200k_base -m "$model" "$@" "$T/par" >"$T/c.json" 2>"$T/c.err" ||
    fail "compare -m $model $*: $(cat "$T/c.err")"
  python3 - "$T/c.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
cols = [v for v in r["vocabularies"] if "model" in v]
assert len(cols) == 1, cols
v = cols[0]
ru = [s for s in r["corpora"][0]["samples"] if s["name"] == "ru"][0]
n = [x["tokens"] for x in ru["results"] if x["vocabulary"] == v["label"]][0]
print(v["model"], v["spec"], v["price_input_per_mtok"], n)
PY
}
count_view() {  # count_view MODEL [ARGS...]
  local model=$1; shift
  "$TOK" count --json -m "$model" "$@" "$T/par/ru.txt" >"$T/n.json" 2>"$T/n.err" ||
    fail "count -m $model $*: $(cat "$T/n.err")"
  python3 - "$T/n.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["models"][0]
print(m["model"], m["encoding"], m["price"]["input_per_mtok"], m["total"]["tokens"])
PY
}

# Shipped models (an exact tokenizer, a proxy one, an alias and a dated
# name), a user catalog model and a --models one: one answer from both.
for m in gpt-4o gpt-4 claude-sonnet-4-5 GPT-4O gpt-4o-2024-05-13 mine; do
  expect_eq "compare vs count -m $m" "$(count_view "$m")" "$(compare_view "$m")"
done
expect_eq "compare vs count --models" "$(count_view extra-model --models "$T/extra.json")" \
  "$(compare_view extra-model --models "$T/extra.json")"
expect_eq "the user catalog's price" "mine r50k_base 7.25" "$(compare_view mine | cut -d' ' -f1-3)"
# A proxy tokenizer is said to be one, in count's words.
compare_view claude-sonnet-4-5 >/dev/null
"$TOK" count -m claude-sonnet-4-5 "$T/par/ru.txt" >/dev/null 2>"$T/n.err"
expect_eq "estimate warning" "$(cat "$T/n.err")" "$(cat "$T/c.err")"
# The model's tokenizer already compared: its column is priced, none added.
"$TOK" compare --json --no-composition -e cl100k_base -e o200k_base -m gpt-4o "$T/par" >"$T/c.json" ||
  fail "compare -m gpt-4o beside its tokenizer"
expect_eq "columns" "cl100k_base o200k_base:gpt-4o" "$(python3 -c '
import json, sys
print(" ".join(v["label"] + (":" + v["model"] if "model" in v else "") for v in json.load(open(sys.argv[1]))["vocabularies"]))' "$T/c.json")"

# An unknown model: the same error (with suggestions and `tok models`) from both.
expect_error 1 "unknown model 'gpt-4x'.*see \`tok models\`" "$TOK" compare -m gpt-4x "$T/par"
cp "$T/err" "$T/compare.err"
expect_error 1 "unknown model 'gpt-4x'" "$TOK" count -m gpt-4x "$T/par/en.txt"
expect_eq "unknown model error" "$(cat "$T/err")" "$(cat "$T/compare.err")"
grep -q 'cost --list' "$T/compare.err" && fail "compare names a command that does not exist"

# A broken user catalog: plain compare is unaffected, -m names the file.
echo '{"models": [ {"id": ' >"$T/cfg/tok/models.json"
expect_status 0 "$TOK" compare --no-composition -e cl100k_base "$T/par"
expect_error 1 "^tok: error: $T/cfg/tok/models.json:" "$TOK" compare -m gpt-4o "$T/par"
cp "$T/err" "$T/compare.err"
expect_error 1 "^tok: error: $T/cfg/tok/models.json:" "$TOK" count -m gpt-4o "$T/par/en.txt"
expect_eq "broken catalog error" "$(cat "$T/err")" "$(cat "$T/compare.err")"
echo "compare_catalog: ok"
