# tok generate --attn-report / --attn-svg / --attn-heads on the default model.
# Only the schema and invariants are checked, not the model's exact attention.
source "$(dirname "$0")/lib.sh"
command -v xmllint >/dev/null || fail "xmllint is needed (apt-get install libxml2-utils; scripts/setup.sh lists it)"
P="In the beginning God created the heaven and the earth."

# -n 0: prefill only; both outputs written, nothing printed on stdout.
expect_status 0 "$TOK" generate -n 0 --attn-report "$T/a.json" --attn-svg "$T/a.svg" "$P"
expect_eq "stdout with -n 0" "" "$(cat "$T/out")"
python3 - "$T/a.json" <<'PY' || fail "report schema: $(head -c 2000 "$T/a.json")"
import json, sys
j = json.load(open(sys.argv[1]))
for k in ["model", "prompt", "rows", "query_rows", "layers", "heads_per_layer", "window", "thresholds",
          "heads", "summary", "heatmap_heads"]:
    assert k in j, k
L, H = j["layers"], j["heads_per_layer"]
assert j["rows"] == "prompt" and j["window"] == 8
assert j["thresholds"] == {"sink": 0.5, "local": 0.5}
ids, toks = j["prompt"]["ids"], j["prompt"]["tokens"]
assert len(ids) == len(toks) and len(ids) >= 5 and j["query_rows"] == len(ids) - 1
assert len(j["heads"]) == L * H
for h in j["heads"]:
    assert 0 <= h["layer"] < L and 0 <= h["head"] < H
    assert abs(h["sink_mass"] + h["local_mass"] + h["far_mass"] - 1) < 1e-3, h
    assert 0 <= h["entropy_norm"] <= 1.0001 and h["entropy"] >= 0 and h["distance"] >= 0, h
    assert h["label"] in ("sink", "local", "long_range"), h
    want = "sink" if h["sink_mass"] > 0.5 else "local" if h["local_mass"] > 0.5 else "long_range"
    assert h["label"] == want, h
s = j["summary"]
assert s["sink"] + s["local"] + s["long_range"] == L * H
assert len(s["layers"]) == L and all(x["sink"] + x["local"] + x["long_range"] == H for x in s["layers"])
assert 1 <= len(j["heatmap_heads"]) <= 3
PY
xmllint --noout "$T/a.svg" || fail "a.svg is not well-formed"
grep -q "<script" "$T/a.svg" && fail "a.svg has a script"
grep -q "Head " "$T/a.svg" || fail "a.svg has no heatmap"

# Chosen heads; the same prompt gives the same report (deterministic prefill).
expect_status 0 "$TOK" generate -n 0 --attn-svg "$T/b.svg" --attn-heads 0.0,1.1 "$P"
xmllint --noout "$T/b.svg" || fail "b.svg is not well-formed"
expect_eq "heatmaps drawn" "2" "$(grep -c '>Head ' "$T/b.svg")"
grep -q '>Head 1.1 ' "$T/b.svg" || fail "head 1.1 not drawn"
expect_status 0 "$TOK" generate -n 0 --attn-report "$T/a2.json" "$P"
cmp -s "$T/a.json" "$T/a2.json" || fail "the report is not deterministic"

# Generated rows counted on request; generation output unchanged by the observer.
plain=$("$TOK" generate --greedy -n 6 "$P")
with=$("$TOK" generate --greedy -n 6 --attn-report "$T/g.json" --attn-generated "$P")
expect_eq "observer leaves text alone" "$plain" "$with"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["rows"]=="prompt_and_generated" and j["query_rows"]==len(j["prompt"]["ids"])-1+5, j["query_rows"]' "$T/g.json" \
  || fail "--attn-generated rows: $(head -c 300 "$T/g.json")"
expect_status 0 "$TOK" generate -n 0 --attn-report "$T/w.json" --attn-window 2 "$P"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["window"]==2' "$T/w.json" || fail "--attn-window"

# Errors: one line, the right status, no output file left behind.
expect_error 2 "attn-heads.*9\.9 does not exist" "$TOK" generate -n 0 --attn-svg "$T/e.svg" --attn-heads 9.9 "$P"
[ -e "$T/e.svg" ] && fail "e.svg written despite the error"
expect_error 2 "attn-heads" "$TOK" generate -n 0 --attn-svg "$T/e.svg" --attn-heads x "$P"
expect_error 2 "attn-window" "$TOK" generate -n 0 --attn-report "$T/e.json" --attn-window 0 "$P"
expect_error 1 "$T/no/such/dir" "$TOK" generate -n 0 --attn-report "$T/no/such/dir/r.json" "$P"
expect_error 1 "at least 2 tokens" "$TOK" generate -n 0 --attn-report "$T/e.json" ""
[ -e "$T/e.json" ] && fail "e.json written despite the error"
ls "$T" | grep -q '\.tmp' && fail "temporary files left: $(ls "$T")"
echo ok
