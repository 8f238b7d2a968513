# tok compare: table, CSV and JSON schemas, SVG/HTML files, errors.
source "$(dirname "$0")/lib.sh"
command -v xmllint >/dev/null || fail "xmllint is needed (apt-get install libxml2-utils; scripts/setup.sh lists it)"
command -v python3 >/dev/null || fail "python3 is needed to check the JSON schema"

# A tiny parallel corpus: a directory and the same as TSV.
mkdir -p "$T/par"
printf 'The river is beautiful.\n' >"$T/par/en.txt"
printf 'Река красивая.\n' >"$T/par/ru.txt"
printf 'မြစ်သည် လှပသည်။\n' >"$T/par/my.txt"
printf 'notes\n' >"$T/par/README.md"
printf 'en\tru\tmy\nThe river is beautiful.\tРека красивая.\tမြစ်သည် လှပသည်။\n' >"$T/par.tsv"

# Table: sorted worst first, baseline premium 1.00, '!' marks (not a terminal).
expect_status 0 "$TOK" compare -e cl100k_base -e o200k_base --no-composition "$T/par"
first=$(grep -E '^[! ] (en|ru|my) ' "$T/out" | head -1 | awk '{print $2}')
expect_eq "worst first" "my" "$first"
grep -qE '^! my ' "$T/out" || fail "worst row not marked with '!': $(cat "$T/out")"
grep -E '^  en ' "$T/out" | head -1 | grep -q ' 1.00 ' || fail "baseline premium is not 1.00"
grep -q $'\x1b' "$T/out" && fail "colour codes in piped output"
grep -q README "$T/out" && fail "README.md counted as a sample"

# CSV: header and one row per sample x vocabulary; the same counts from the TSV.
expect_status 0 "$TOK" compare -e cl100k_base --csv "$T/par"
head -1 "$T/out" >"$T/header"
expect_eq "csv header" "corpus,sample,script,vocabulary,bytes,graphemes,words,tokens,continued_words,bytes_per_token,chars_per_token,fertility,continued,premium,cost_per_1k_words" "$(cat "$T/header")"
expect_eq "csv rows" 4 "$(wc -l <"$T/out")"
expect_eq "en premium" "1" "$(grep ',en,' "$T/out" | cut -d, -f14)"
cut -d, -f2,8 "$T/out" | sort >"$T/dir.counts"
expect_status 0 "$TOK" compare -e cl100k_base --csv "$T/par.tsv"
cut -d, -f2,8 "$T/out" | sort >"$T/tsv.counts"
diff "$T/dir.counts" "$T/tsv.counts" >/dev/null || fail "TSV and directory counts differ"

# Token counts agree with tok count.
n=$("$TOK" count -q -e cl100k_base "$T/par/ru.txt")
expect_status 0 "$TOK" compare -e cl100k_base --csv "$T/par"
expect_eq "tokens = tok count" "$n" "$(grep ',ru,' "$T/out" | cut -d, -f8)"

# JSON schema.
expect_status 0 "$TOK" compare -e cl100k_base -e r50k_base --json "$T/par"
python3 - "$T/out" <<'PY' || fail "JSON schema check failed"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["tool"] == "tok compare" and j["words_measured"] is True
assert [v["label"] for v in j["vocabularies"]] == ["cl100k_base", "r50k_base"]
c = j["corpora"][0]
assert c["baseline"] == "en"
names = [s["name"] for s in c["samples"]]
assert sorted(names) == ["en", "my", "ru"], names
for s in c["samples"]:
    for k in ("name", "script", "bytes", "graphemes", "words", "worst", "results"):
        assert k in s, k
    assert len(s["results"]) == 2
    for r in s["results"]:
        for k in ("vocabulary", "tokens", "continued_words", "bytes_per_token",
                  "chars_per_token", "fertility", "continued", "premium", "cost_per_1k_words"):
            assert k in r, k
        if s["name"] == "en":
            assert r["premium"] == 1.0
assert len(j["composition"]) == 2
assert j["overlap"]["jaccard"][0][0] == 1.0
assert 0 < j["overlap"]["jaccard"][0][1] < 1
PY

# SVG (well-formed XML) and HTML, written atomically.
expect_status 0 "$TOK" compare -q -e cl100k_base --svg "$T/chart.svg" --html "$T/report.html" "$T/par" "$T/par.tsv"
xmllint --noout "$T/chart.svg" || fail "chart.svg is not well-formed"
xmllint --noout "$T/chart-2.svg" || fail "chart-2.svg is not well-formed"
grep -q '<svg' "$T/report.html" || fail "HTML report has no chart"
xmllint --html --noout "$T/report.html" 2>"$T/html.err" || fail "HTML does not parse: $(cat "$T/html.err")"
[ -s "$T/out" ] && fail "-q printed something"
# -q leaves out the table, never output asked for by name.
"$TOK" compare -q --json -e cl100k_base --no-composition "$T/par" >"$T/q.json" 2>"$T/err" || fail "-q --json"
node -e 'JSON.parse(require("fs").readFileSync(process.argv[1]))' "$T/q.json" || fail "-q --json printed no JSON: $(cat "$T/q.json")"
[ -s "$T/err" ] && fail "-q --json wrote to stderr: $(cat "$T/err")"
"$TOK" compare -q --csv -e cl100k_base --no-composition "$T/par" >"$T/q.csv" || fail "-q --csv"
[ "$(wc -l <"$T/q.csv")" -gt 1 ] || fail "-q --csv printed no CSV"
ls "$T" | grep -q '\.tmp' && fail "temporary files left behind"

# The shipped sample (default), fast path.
expect_status 0 "$TOK" compare --no-words --no-composition --csv
grep -q ',zh-Hans,' "$T/out" || fail "default run lacks the shipped zh-Hans sample"
grep -q ',python,' "$T/out" || fail "default run lacks the shipped code samples"

# Errors: one line, exit 1 (or 2 for usage).
expect_error 1 'nonexistent: no such file' "$TOK" compare "$T/nonexistent"
printf 'just one column\n' >"$T/bad.tsv"
expect_error 1 'bad.tsv:1: not a parallel TSV' "$TOK" compare "$T/bad.tsv"
expect_error 2 'exclusive' "$TOK" compare --csv --json "$T/par"
expect_error 1 "unknown model 'no-such-model-xyz'" "$TOK" compare -m no-such-model-xyz "$T/par"
expect_error 1 "par: no sample named 'xx' for --baseline; its samples: en, my, ru" \
  "$TOK" compare --baseline xx "$T/par"
# An explicit baseline that only one corpus has is fine (the other gets no premium).
expect_status 0 "$TOK" compare --baseline ru --csv "$T/par" "$T/par.tsv"
expect_eq "ru premium" "1" "$(grep ',ru,' "$T/out" | head -1 | cut -d, -f14)"
echo "compare: ok"
