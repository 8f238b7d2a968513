# The Python package installed by pip, as docs/python.md gives it, from a
# clean copy of the tree (the files git lists, as they are in the working
# tree), offline (--no-index) with Debian's pip and --no-build-isolation:
# `pip install .` into a virtual environment; `pip wheel .` and that wheel
# installed into a second one. Each imports tok and tok.tiktoken from another
# folder with the copy moved away and TOK_VOCAB_DIR unset (the vocabularies
# and the price catalog come from inside the package), and tok.__version__
# is `tok --version`'s. Then tiktoken's own suite (../shared/testsuites) runs
# against the installed package; without the suite that step alone is
# skipped, saying so.
source "$TOK_ROOT/tests/cli/lib.sh"
unset TOK_VOCAB_DIR PYTHONPATH
export PYTHONDONTWRITEBYTECODE=1 PIP_NO_INDEX=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
for p in python3-venv python3-pip python3-setuptools python3-wheel; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    fail "$p is not installed (scripts/test --full installs it)"
done
SRC="$T/tok-src"
mkdir "$SRC"
# Tracked and new (not ignored) files; a tracked file deleted in the working
# tree is left out, as the commit would leave it.
(cd "$TOK_ROOT" && git ls-files -z --cached --others --exclude-standard |
  while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
  tar --null --verbatim-files-from -T - -cf -) | tar -C "$SRC" -xf - || fail "copying the tree failed"
# The compiler cache, keyed on paths relative to the copy as they are to a
# checkout under /work: the copy's objects are those of scripts/python's build.
export CCACHE_BASEDIR="$SRC"

# pip_in DIR LOG PIP_ARGS...: runs pip in DIR, its log (-v: the build's
# progress) in LOG, shown when it fails.
pip_in() {
  local dir=$1 log=$2; shift 2
  (cd "$dir" && "$@") >"$log" 2>&1 || fail "$* failed: $(tail -40 "$log")"
}
/usr/bin/python3 -m venv --system-site-packages "$T/v1" || fail "python3 -m venv failed"
pip_in "$SRC" "$T/install.log" "$T/v1/bin/pip" install -v --no-build-isolation .
pip_in "$SRC" "$T/wheel.log" "$T/v1/bin/pip" wheel -v --no-build-isolation --no-deps -w "$T/wheels" .
WHEEL=$(ls "$T"/wheels/tok-*.whl) || fail "pip wheel wrote no tok wheel: $(ls "$T/wheels")"
/usr/bin/python3 -m venv --system-site-packages "$T/v2" || fail "python3 -m venv failed"
pip_in "$T" "$T/wheel-install.log" "$T/v2/bin/pip" install "$WHEEL"
mv "$SRC" "$T/moved" || fail "moving the copy away failed"

VERSION=$("$TOK" --version | head -1) || fail "tok --version failed"
VERSION=${VERSION#tok }
mkdir "$T/elsewhere" && printf 'hello world\n' >"$T/elsewhere/a.txt"
for v in v1 v2; do
  out=$(cd "$T/elsewhere" && "$T/$v/bin/python" - "$T/$v" <<'PY' 2>&1
import importlib.metadata, os, sys
import tok
import tok.tiktoken as tiktoken
venv = sys.argv[1]
pkg = os.path.dirname(tok.__file__)
assert pkg.startswith(venv + "/lib/"), f"tok imported from {pkg}, not from {venv}"
files = sorted(os.listdir(pkg))
assert any(f.startswith("_tok.") and f.endswith(".so") for f in files), files
assert os.path.isfile(os.path.join(pkg, "vocab", "o200k_base.tiktoken")), files
assert importlib.metadata.version("tok") == tok.__version__, importlib.metadata.version("tok")
enc = tiktoken.get_encoding("o200k_base")
assert enc.decode(enc.encode("hello world")) == "hello world"
assert tiktoken.encoding_for_model("gpt-4").encode("hello world") == [15339, 1917]
assert tok.load("qwen3").decode(tok.load("qwen3").encode("hello")) == "hello"
counted = tok.count_files(["a.txt"], models=["gpt-4o"])
assert counted["models"][0]["total"]["tokens"] == 3, counted
print(tok.__version__)
PY
  ) || fail "$v: the installed package: $out"
  expect_eq "$v: tok.__version__" "$VERSION" "$out"
done
echo "installed by pip install . and from $(basename "$WHEEL"): tok $VERSION"

SUITE=$(tiktoken_suite)
if [ -z "$SUITE" ]; then
  echo "SKIPPED: tiktoken's test suite against the installed package: not found (no ../shared/testsuites/tiktoken beside the repository)"
  exit 0
fi
cp -r "$SUITE/tests" "$T/tests"
cd "$T" || fail "cd $T"
PYTHONPATH="$TOK_ROOT/tests/python/tiktoken_shim" "$T/v1/bin/python" -m pytest -q -p no:cacheprovider tests \
  >"$T/suite.log" 2>&1 || fail "tiktoken's tests against the installed package failed: $(tail -40 "$T/suite.log")"
echo "tiktoken's suite against the installed package: $(tail -1 "$T/suite.log")"
