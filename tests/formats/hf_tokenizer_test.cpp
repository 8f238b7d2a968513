// Hugging Face tokenizer.json loading: tiny hand-written files, decode of
// SentencePiece-style vocabularies, and clear errors for what tok cannot read.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "formats/hf_tokenizer.hpp"
#include "formats/registry.hpp"

using namespace tok;

namespace {
Result<bpe::Tokenizer> from_json(const std::string& text) {
  return formats::load_hf_tokenizer_json(text, "/nonexistent/tokenizer.json", "t");
}
}  // namespace

TEST_CASE("hf: SentencePiece-style decode maps ▁ back to spaces") {
  auto tk = formats::load_tokenizer("mistral");
  REQUIRE_MESSAGE(tk.ok(), tk.error().message);
  CHECK(tk->has_decode_transform());
  auto ids = tk->encode("Hello world", bpe::SpecialMode::kText);
  REQUIRE(ids.ok());
  CHECK(*ids == std::vector<bpe::TokenId>{22557, 1526});
  CHECK(*tk->decode(*ids) == "Hello world");
}

TEST_CASE("hf: a tiny byte-level BPE file") {
  std::string j = R"({"model":{"type":"BPE","vocab":{"a":0,"b":1,"ab":2,"Ġ":3,"Ġab":4},
    "merges":["a b", ["Ġ","ab"]]},
    "pre_tokenizer":{"type":"ByteLevel","add_prefix_space":false,"use_regex":true},
    "added_tokens":[{"id":5,"content":"<x>","special":true},{"id":6,"content":"yo","special":false}]})";
  auto tk = from_json(j);
  REQUIRE_MESSAGE(tk.ok(), tk.error().message);
  CHECK(*tk->encode("ab ab", bpe::SpecialMode::kText) == std::vector<bpe::TokenId>{2, 4});
  CHECK(*tk->encode("ab<x>", bpe::SpecialMode::kAllow) == std::vector<bpe::TokenId>{2, 5});
  // A non-special added token is matched in every mode.
  CHECK(*tk->encode("yoab", bpe::SpecialMode::kText) == std::vector<bpe::TokenId>{6, 2});
  CHECK_FALSE(tk->encode("<x>", bpe::SpecialMode::kError).ok());
  // 'c' and 'z' have no token and there is no unk_token: dropped, as Hugging
  // Face tokenizers drops them (never an id outside the vocabulary), in
  // encode, count and spans alike.
  CHECK(*tk->encode("abc ab", bpe::SpecialMode::kText) == std::vector<bpe::TokenId>{2, 4});
  CHECK(*tk->count("abc ab", bpe::SpecialMode::kText) == 2);
  CHECK(tk->encode("zz", bpe::SpecialMode::kText)->empty());
  CHECK(*tk->count("zz zz", bpe::SpecialMode::kText) == 1);
}

TEST_CASE("hf: errors") {
  auto e = from_json("{\"model\": {\n  \"type\": \"BPE\",, }}");
  REQUIRE_FALSE(e.ok());
  CHECK(e.error().message.find("/nonexistent/tokenizer.json:2:") == 0);
  auto wp = from_json(R"({"model":{"type":"WordPiece","vocab":{}}})");
  CHECK(wp.error().message.find("model type 'WordPiece' is not supported yet") != std::string::npos);
  auto uni = from_json(R"({"model":{"type":"Unigram","vocab":[]}})");
  CHECK(uni.error().message.find("'Unigram' is not supported yet") != std::string::npos);
  auto bad_merge = from_json(R"({"model":{"type":"BPE","vocab":{"a":0,"b":1},"merges":["a b"]},
    "pre_tokenizer":{"type":"ByteLevel"}})");
  CHECK(bad_merge.error().message.find("not in the vocabulary") != std::string::npos);
  auto missing = from_json(R"({"model":{"type":"BPE","vocab":{"a":0},"merges":["a c"]},
    "pre_tokenizer":{"type":"ByteLevel"}})");
  CHECK(missing.error().message.find("token 'c' is not in the vocabulary") != std::string::npos);
  auto pre = from_json(R"({"model":{"type":"BPE","vocab":{"a":0},"merges":[]},
    "pre_tokenizer":{"type":"Whitespace"}})");
  CHECK(pre.error().message.find("pre-tokenizer 'Whitespace' is not supported yet") !=
        std::string::npos);
}
