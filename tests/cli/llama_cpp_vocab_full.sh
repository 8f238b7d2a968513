# All 46 inputs of each of llama.cpp's 9 vocabularies (see llama_cpp_vocab.sh).
LIMIT=1000 source "$TOK_ROOT/tests/cli/llama_cpp_vocab.sh"
