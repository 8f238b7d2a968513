# The module order holds: no #include edge points up the order (core < text <
# bpe < formats < {fetch, kv, show, io, cost, compare} < model < {python, cli}),
# unit tests include only what their module links, and the Python module's
# sources only what its target links (scripts/check-layering).
source "$(dirname "$0")/lib.sh"
: "${TOK_ROOT:?TOK_ROOT must point at the source tree}"
check="$TOK_ROOT/scripts/check-layering"
"$check" "$TOK_ROOT" >"$T/out" || fail "layering: $(cat "$T/out")"

# The check can fail: a small tree with one edge of each wrong kind.
mkdir -p "$T/tree/src/core" "$T/tree/src/bpe" "$T/tree/src/text" "$T/tree/tests/text"
cat >"$T/tree/src/CMakeLists.txt" <<'CM'
tok_module(core DEPS fmt::fmt)
tok_module(text DEPS tok_core)
tok_module(bpe DEPS tok_text)
CM
echo 'tok_unit_tests(text)' >"$T/tree/tests/CMakeLists.txt"
printf '#include "core/result.hpp"\n#include "tok/build_info.hpp"\n' >"$T/tree/src/text/ok.cpp"
printf '#include <vector>\n#include "bpe/encoder.hpp"\n' >"$T/tree/src/core/up.hpp"
printf '#include "text/utf8.hpp"\n#include "bpe/tokenizer.hpp"\n' >"$T/tree/tests/text/up_test.cpp"
expect_status 1 "$check" "$T/tree"
grep -q 'src/core/up.hpp:2: includes bpe/' "$T/out" || fail "core including bpe not reported: $(cat "$T/out")"
grep -q 'tests/text/up_test.cpp:2: includes bpe/' "$T/out" || fail "a text test including bpe not reported: $(cat "$T/out")"
[ "$(wc -l <"$T/out")" == 2 ] || fail "expected two bad edges: $(cat "$T/out")"

# A dependency declared against the order is refused too.
echo 'tok_module(formats DEPS tok_bpe)' >>"$T/tree/src/CMakeLists.txt"
echo 'tok_module(core2 DEPS tok_core)' >>"$T/tree/src/CMakeLists.txt"
sed -i 's/tok_module(text DEPS tok_core)/tok_module(text DEPS tok_core tok_formats)/' "$T/tree/src/CMakeLists.txt"
rm "$T/tree/src/core/up.hpp" "$T/tree/tests/text/up_test.cpp"
expect_status 1 "$check" "$T/tree"
grep -q 'text depends on formats' "$T/out" || fail "text depending on formats not reported: $(cat "$T/out")"
grep -q "module 'core2' is not in the module order" "$T/out" || fail "unknown module not reported: $(cat "$T/out")"

# src/python may include what the _tok target links, and no more; cli, which
# does not link it, may not include src/python.
mkdir -p "$T/py/src/core" "$T/py/src/bpe" "$T/py/src/kv" "$T/py/src/python" "$T/py/src/cli" "$T/py/tests"
printf 'tok_module(core DEPS fmt::fmt)\ntok_module(bpe DEPS tok_core)\ntok_module(kv DEPS tok_core)\n' \
  >"$T/py/src/CMakeLists.txt"
printf 'if(TOK_PYTHON)\n  target_link_libraries(_tok PRIVATE tok_bpe)\nendif()\n' >>"$T/py/src/CMakeLists.txt"
: >"$T/py/tests/CMakeLists.txt"
printf '#include "python/engine.hpp"\n#include "core/result.hpp"\n#include "kv/block_pool.hpp"\n' \
  >"$T/py/src/python/engine.cpp"
printf '#include "bpe/tokenizer.hpp"\n#include "python/engine.hpp"\n' >"$T/py/src/cli/main.cpp"
expect_status 1 "$check" "$T/py"
grep -q 'src/python/engine.cpp:3: includes kv/' "$T/out" ||
  fail "python including a module _tok does not link not reported: $(cat "$T/out")"
grep -q 'src/cli/main.cpp:2: includes python/' "$T/out" || fail "cli including python not reported: $(cat "$T/out")"
[ "$(wc -l <"$T/out")" == 2 ] || fail "expected two bad edges: $(cat "$T/out")"

# The model catalog has one reader: a module other than cost (and cli)
# naming models.json is reported.
mkdir -p "$T/cat/src/core" "$T/cat/src/cost" "$T/cat/src/compare" "$T/cat/tests"
printf 'tok_module(core DEPS fmt::fmt)\ntok_module(cost DEPS tok_core)\ntok_module(compare DEPS tok_core)\n' \
  >"$T/cat/src/CMakeLists.txt"
: >"$T/cat/tests/CMakeLists.txt"
echo 'auto kShipped = "models.json";' >"$T/cat/src/cost/catalog.cpp"
printf '// reads\nauto kPath = "vocab/models.json";\n' >"$T/cat/src/compare/model_price.cpp"
expect_status 1 "$check" "$T/cat"
grep -q 'src/compare/model_price.cpp:2: names models.json' "$T/out" ||
  fail "compare reading the model catalog not reported: $(cat "$T/out")"
[ "$(wc -l <"$T/out")" == 1 ] || fail "expected one report (cost may read its catalog): $(cat "$T/out")"

# Only fetch (npm install) and cli start other programs: the modules below
# them, and so libtok, never do.
spawners=$(grep -rlE 'posix_spawn|\bexec[lv]p?e?\s*\(|\bpopen\s*\(' "$TOK_ROOT/src" | grep -vE '/src/(fetch|cli)/' || true)
[ -z "$spawners" ] || fail "a module below fetch starts a program: $spawners"
