# The documented examples marked `<!-- example: full -->` (tests/README.md):
# those that name model files (random models of the families they name, with
# a chat template), build the Python package or use GNU parallel.
source "$TOK_ROOT/tests/cli/lib.sh"
source "$TOK_ROOT/tests/cli/docs_examples.inc"
command -v parallel >/dev/null || fail "GNU parallel is not installed (scripts/test --full installs it)"
mkdir -p "$T/fixture"
for m in "llama3 Llama-3.2-1B-Instruct-Q4_K_M.gguf" "qwen3 Qwen3-0.6B-Q8_0.gguf"; do
  set -- $m
  /usr/bin/python3 "$TOK_ROOT/scripts/make-random-model" "$T/fixture/$2" --arch "$1" --ctx 512 \
    --chat-template "$TOK_TEST_DATA/chat/chatml.jinja" 2>"$T/err" || fail "make-random-model $2: $(cat "$T/err")"
done
run_examples full
