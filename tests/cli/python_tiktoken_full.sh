# tiktoken's own test suite (../shared/testsuites/tiktoken, unchanged) run
# against tok.tiktoken: `import tiktoken` resolves to it through
# tests/python/tiktoken_shim. Skipped, saying so, when the suite is absent.
source "$TOK_ROOT/tests/cli/lib.sh"
SUITE=$(tiktoken_suite)
if [ -z "$SUITE" ]; then
  echo "SKIPPED: tiktoken's test suite not found (no ../shared/testsuites/tiktoken beside the repository)"
  exit 0
fi
PY="$("$TOK_ROOT/scripts/python" | tail -1)" || fail "scripts/python failed"
# The suite writes nothing into the shared folder: no bytecode, no cache.
cp -r "$SUITE/tests" "$T/tests"
cd "$T" || fail "cd $T"
PYTHONPATH="$PY:$TOK_ROOT/tests/python/tiktoken_shim" PYTHONDONTWRITEBYTECODE=1 \
  /usr/bin/python3 -m pytest -q -p no:cacheprovider tests >"$T/log" 2>&1 ||
  fail "tiktoken's tests failed: $(tail -40 "$T/log")"
tail -1 "$T/log"
