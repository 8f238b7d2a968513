#!/usr/bin/env bash
# A broken user catalog ($XDG_CONFIG_HOME/tok/models.json) only matters when
# a model is asked for: plain counting ignores it and `tok models` lists the
# shipped catalog with a warning. Counts in it (layers, windows) must be whole
# numbers >= 1. No home directory means no user catalog and nothing created.
source "$(dirname "$0")/lib.sh"
printf 'hello world\n' >"$T/a.txt"
mkdir -p "$T/cfg/tok"
export XDG_CONFIG_HOME="$T/cfg"
want=$("$TOK" count -q "$T/a.txt")

echo '{"models": [ {"id": ' >"$T/cfg/tok/models.json"  # not JSON
expect_eq "count with a broken user catalog" "$want" "$("$TOK" count -q "$T/a.txt" 2>&1)"
expect_status 0 "$TOK" models
grep -q '^gpt-4o ' "$T/out" || fail "tok models lost the shipped catalog"
grep -q "^tok: warning: $T/cfg/tok/models.json:.*(its models are left out)$" "$T/err" ||
  fail "tok models: no warning naming the user catalog: $(cat "$T/err")"
expect_error 1 "^tok: error: $T/cfg/tok/models.json:" "$TOK" count -m gpt-4o "$T/a.txt"

bad_field() {  # bad_field JSON_FRAGMENT FIELD
  printf '{"models": [{"id": "mine", "tokenizer": "o200k_base", %s}]}\n' "$1" >"$T/cfg/tok/models.json"
  expect_error 1 "^tok: error: $T/cfg/tok/models.json: model 'mine': field '$2' must be a whole number from 1 to [0-9]+ \(got .*\)$" \
    "$TOK" count -m mine "$T/a.txt"
}
bad_field '"context_window": 0' context_window
bad_field '"context_window": -5' context_window
bad_field '"max_output": 2.5' max_output
bad_field '"context_window": 1e30' context_window
kv='"attention": "gqa", "heads": 8, "kv_heads": 8, "head_dim": 64'
bad_field "\"kv\": {\"layers\": -1, $kv}" layers
bad_field "\"kv\": {\"layers\": 4.5, $kv}" layers
bad_field "\"kv\": {\"layers\": 4294967296, $kv}" layers
printf '{"models": [{"id": "mine", "tokenizer": "o200k_base", "context_window": 128000.0, "kv": {"layers": 4, %s}}]}\n' "$kv" \
  >"$T/cfg/tok/models.json"
expect_status 0 "$TOK" count -m mine "$T/a.txt"  # an integral float is a whole number

# No home: no user catalog read, no cache directory created under it.
unset XDG_CONFIG_HOME
expect_eq "HOME=/nonexistent" "$want" "$(HOME=/nonexistent/x XDG_CACHE_HOME= "$TOK" count -q "$T/a.txt")"
[ -e /nonexistent ] && fail "tok created /nonexistent"
expect_status 0 env HOME=/nonexistent/x XDG_CACHE_HOME= "$TOK" encode -e o200k_base "$T/a.txt"
[ -e /nonexistent ] && fail "tok created /nonexistent (table cache)"
echo ok
