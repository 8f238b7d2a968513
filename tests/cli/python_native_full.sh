# The native Python API (import tok) and tok.tiktoken beyond tiktoken's own
# suite: tests/python/test_native.py, and test_tiktoken_peer.py against npm
# tiktoken (skipped without it), under pytest.
source "$TOK_ROOT/tests/cli/lib.sh"
PY="$("$TOK_ROOT/scripts/python" | tail -1)" || fail "scripts/python failed"
cd "$T" || fail "cd $T"
PYTHONPATH="$PY" PYTHONDONTWRITEBYTECODE=1 TOK_ROOT="$TOK_ROOT" TOK="$TOK" \
  /usr/bin/python3 -m pytest -q -p no:cacheprovider "$TOK_ROOT/tests/python/test_native.py" "$TOK_ROOT/tests/python/test_tiktoken_peer.py" \
  >"$T/log" 2>&1 || fail "native API tests failed: $(tail -40 "$T/log")"
tail -1 "$T/log"
