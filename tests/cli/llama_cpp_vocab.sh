# llama.cpp's tokenizer test suite (tests/data/llama.cpp-vocab, 9 GGUF
# vocabularies x 46 inputs): every case through `tok encode -e FILE.gguf
# --special text` (llama.cpp's parse_special = false) must give llama.cpp's ids.
# The fast suite runs the first $LIMIT inputs of each (one tok process per
# case is slow on a loaded machine); llama_cpp_vocab_full.sh runs all 46.
source "$TOK_ROOT/tests/cli/lib.sh"
d="$TOK_TEST_DATA/llama.cpp-vocab"
sep=$'\n__ggml_vocab_test__\n'
total_bad=0
LIMIT=${LIMIT:-12}
for name in gpt-2 deepseek-coder deepseek-llm falcon mpt refact starcoder llama-spm phi-3; do
  f="$d/ggml-vocab-$name.gguf"
  [ -f "$f" ] || fail "missing $f"
  # Split the .inp file into one file per input (bash strings cannot hold NUL; inputs have none).
  rm -rf "$T/in"; mkdir -p "$T/in"
  awk -v dir="$T/in" 'BEGIN{RS="\n__ggml_vocab_test__\n"; ORS=""} {n++; printf "%s", $0 > (dir "/" sprintf("%03d", n)); close(dir "/" sprintf("%03d", n))}' "$f.inp"
  n=0; ok=0
  while IFS= read -r want || [ -n "$want" ]; do
    n=$((n + 1))
    [ $n -le $LIMIT ] || { n=$((n - 1)); break; }
    in="$T/in/$(printf %03d $n)"
    [ -f "$in" ] || : >"$in"
    got=$("$TOK" encode -e "$f" --special text "$in" 2>&1)
    want="${want# }"
    if [ "$got" == "$want" ]; then ok=$((ok + 1)); else
      [ $((n - ok)) -le 2 ] && echo "  $name case $n: want [$want] got [$got]" >&2
    fi
  done <"$f.out"
  echo "$name: $ok/$n"
  total_bad=$((total_bad + n - ok))
done
[ $total_bad == 0 ] || fail "$total_bad llama.cpp-vocab cases differ"
