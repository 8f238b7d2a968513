# Every command example of README.md and docs/*.md runs as written: the
# blocks without a marker (tests/README.md: fences, markers, the fixture
# folder), against the shipped data, with exit status 0 and, in console
# blocks, the output shown. docs_examples_full.sh runs the blocks marked full.
# DOCS_EXAMPLES_ONLY=docs/encode.md runs only the blocks whose FILE:LINE contains it.
source "$TOK_ROOT/tests/cli/lib.sh"
source "$TOK_ROOT/tests/cli/docs_examples.inc"
run_examples fast

# The checker itself fails where it must: a command that fails, output that
# differs, a known failure that now passes, a skip without a reason and an
# unlabelled block of commands, each reported with its file and line.
B="$T/broken"
mkdir -p "$B/docs"
cat >"$B/README.md" <<'MD'
```sh
tok encode -t hi
tok no-such-command
```

```console
$ tok encode -t hi
1
```

<!-- example: fails: fixed since -->
```sh
tok encode -t hi
```

<!-- example: skip: -->
```sh
true
```

```
tok encode -t hi
```
MD
python3 "$TOK_ROOT/tests/cli/docs_examples.py" --mode fast --root "$B" --fixture "$T/fixture" \
  --work "$T/work" >"$T/out" 2>&1 && fail "the checker passed a broken page: $(cat "$T/out")"
for want in "FAIL: README.md:3: exit status 2" '^  \$ tok no-such-command$' "FAIL: README.md:7: output differs" \
  "FAIL: README.md:12: marked .* but every command now succeeds" "FAIL: README.md:16: .skip. needs a reason" \
  "FAIL: README.md:21: an unlabelled block holds commands"; do
  grep -q -- "$want" "$T/out" || fail "checker: no '$want' in: $(cat "$T/out")"
done
