# Gemini models count with the published Gemini tokenizer once `tok vocab
# fetch gemini` has installed it, labelled as published (not an estimate, not
# exact), and with o200k_base as a proxy (ESTIMATE) until then. The installed
# file is stood in for by a shipped tokenizer.json, so the counts show which
# file was used; hf_live_full.sh checks the real one against HF tokenizers.
source "$TOK_ROOT/tests/cli/lib.sh"
export XDG_CACHE_HOME="$T/cache" XDG_CONFIG_HOME="$T/config"
f="$TOK_ROOT/vocab/samples/ja.txt"
proxy=$("$TOK" count -q -e o200k_base "$f")
stand_in="$TOK_ROOT/vocab/mistral/tokenizer.json"
published=$("$TOK" count -q -e "$stand_in" "$f")
[ "$proxy" != "$published" ] || fail "the stand-in counts like the proxy ($proxy): pick another"

# Not fetched: the proxy, an estimate.
expect_status 0 "$TOK" count -m gemini-2.5-pro --json "$f"
grep -q "\"encoding\":\"o200k_base\",\"estimate\":true,\"tokenizer_kind\":\"proxy\"" "$T/out" || fail "proxy json: $(cat "$T/out")"
grep -q "\"tokens\":$proxy" "$T/out" || fail "proxy count: $(cat "$T/out")"
grep -q 'ESTIMATES' "$T/err" || fail "proxy: no estimate warning: $(cat "$T/err")"
expect_status 0 "$TOK" models -s gemini-2.5-pro
grep -qE '^gemini-2.5-pro +google +o200k_base~ ' "$T/out" || fail "models, proxy: $(cat "$T/out")"

# Fetched (stood in): the published tokenizer, labelled so, no estimate warning.
mkdir -p "$T/cache/tok/vocab/gemini"
cp "$stand_in" "$T/cache/tok/vocab/gemini/tokenizer.json"
expect_status 0 "$TOK" count -m gemini-2.5-pro --json "$f"
grep -q "\"estimate\":false,\"tokenizer_kind\":\"published\"" "$T/out" || fail "published json: $(cat "$T/out")"
grep -q "\"tokens\":$published" "$T/out" || fail "published count: $(cat "$T/out")"
expect_eq "published: no warning" "" "$(cat "$T/err")"
expect_status 0 "$TOK" count -m gemini-2.5-pro -m gpt-4o "$f"
grep -qE '^gemini-2.5-pro .*published tokenizer, 2026' "$T/out" || fail "published table: $(cat "$T/out")"
grep -qE '^gpt-4o .*ESTIMATE|^gpt-4o .*published' "$T/out" && fail "gpt-4o mislabelled: $(cat "$T/out")"
expect_status 0 "$TOK" models -s gemini-2.5-pro
grep -qE '^gemini-2.5-pro +google +gemini\* ' "$T/out" || fail "models, published: $(cat "$T/out")"
expect_status 0 "$TOK" models --json
expect_eq "models --json: tokenizer, estimate, kind" \
  "gemini False published | o200k_base True proxy | o200k_base False exact" \
  "$(python3 -c 'import json, sys
m = {e["id"]: e for e in json.load(open(sys.argv[1]))}
print(" | ".join("%s %s %s" % (e["tokenizer"], e["estimate"], e["tokenizer_kind"])
                 for e in (m["gemini-2.5-pro"], m["claude-sonnet-4-5"], m["gpt-4o"])))' "$T/out")"

# A catalog entry naming a vocabulary tok cannot fetch is refused.
mkdir -p "$T/config/tok"
echo '{"models": [{"id": "m1", "provider": "p", "tokenizer": "o200k_base", "published_tokenizer": "nope"}]}' \
  >"$T/config/tok/models.json"
expect_error 1 "published_tokenizer' 'nope' is not a vocabulary" "$TOK" count -m m1 "$f"
