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
  // Spans: "abc" is piece 0 (its 'c' dropped), " ab" piece 1 at byte 3. The
  // batched offsets do not add up there, so the batch is redone per piece.
  std::vector<bpe::TokenSpan> spans;
  REQUIRE(tk->encode_spans("abc ab", bpe::SpecialMode::kText, spans).ok());
  REQUIRE(spans.size() == 2);
  CHECK(spans[0].id == 2);
  CHECK(spans[0].begin == 0);
  CHECK(spans[1].id == 4);
  CHECK(spans[1].begin == 3);
}

TEST_CASE("spans: ids equal encode(), offsets tile the text (batched path)") {
  auto tk = formats::load_tokenizer("cl100k_base");
  REQUIRE(tk.ok());
  std::string text;
  for (int i = 0; i < 40; ++i) {
    text += "The quick brown fox, \xc3\xa9t\xc3\xa9 \xe4\xb8\xad\xe6\x96\x87 123456 \n\n  x";
    text += std::to_string(i * 7919);
  }
  std::vector<bpe::TokenSpan> spans;
  REQUIRE(tk->encode_spans(text, bpe::SpecialMode::kText, spans).ok());
  auto ids = tk->encode(text, bpe::SpecialMode::kText);
  REQUIRE(ids.ok());
  REQUIRE(spans.size() == ids->size());
  std::size_t off = 0;
  for (std::size_t i = 0; i < spans.size(); ++i) {
    CHECK(spans[i].id == (*ids)[i]);
    REQUIRE(spans[i].begin == off);
    std::string_view b = tk->token_bytes(spans[i].id);
    CHECK(text.compare(off, b.size(), b) == 0);
    off += b.size();
  }
  CHECK(off == text.size());
}

TEST_CASE("hf: errors") {
  auto e = from_json("{\"model\": {\n  \"type\": \"BPE\",, }}");
  REQUIRE_FALSE(e.ok());
  CHECK(e.error().message.find("/nonexistent/tokenizer.json:2:") == 0);
  auto wp = from_json(R"({"model":{"type":"WordPiece","vocab":{}}})");
  CHECK(wp.error().message.find("model type 'WordPiece' is not supported yet") !=
        std::string::npos);
  auto uni = from_json(R"({"model":{"type":"Unigram","vocab":[]}})");
  CHECK(uni.error().message.find("'Unigram' is not supported yet") != std::string::npos);
  auto bad_merge = from_json(R"({"model":{"type":"BPE","vocab":{"a":0,"b":1},"merges":["a b"]},
    "pre_tokenizer":{"type":"ByteLevel"}})");
  CHECK(bad_merge.error().message.find("not in the vocabulary") != std::string::npos);
  auto missing = from_json(R"({"model":{"type":"BPE","vocab":{"a":0},"merges":["a c"]},
    "pre_tokenizer":{"type":"ByteLevel"}})");
  CHECK(missing.error().message.find("token 'c' is not in the vocabulary") != std::string::npos);
  // A value of the wrong kind is an error naming the file, not an exception
  // (found by fuzzing: "type" as an array).
  auto kind = from_json(R"({"model":{"type":["a c"]}})");
  REQUIRE_FALSE(kind.ok());
  CHECK(kind.error().message ==
        "/nonexistent/tokenizer.json: unexpected JSON: type must be string, but is array");
  auto special = from_json(R"({"model":{"type":"BPE","vocab":{"a":0},"merges":[]},
    "pre_tokenizer":{"type":"ByteLevel"},"added_tokens":[{"id":1,"content":"x","special":"yes"}]})");
  REQUIRE_FALSE(special.ok());
  CHECK(special.error().message.find("/nonexistent/tokenizer.json: unexpected JSON: ") == 0);
  auto pre = from_json(R"({"model":{"type":"BPE","vocab":{"a":0},"merges":[]},
    "pre_tokenizer":{"type":"Whitespace"}})");
  CHECK(pre.error().message.find("pre-tokenizer 'Whitespace' is not supported yet") !=
        std::string::npos);
}

TEST_CASE("hf: spans of a normalizing vocabulary index the input bytes") {
  // NFC + Lowercase + Metaspace ("▁" for spaces, prefixed): the model sees
  // "▁ab▁é" for "AB e\u0301" (6 input bytes: A B space e U+0301).
  std::string j = R"({"model":{"type":"BPE","vocab":{"a":0,"b":1,"▁":2,"é":3,"ab":4,"▁ab":5,"▁é":6},
    "merges":["a b", "▁ ab", "▁ é"]},
    "normalizer":{"type":"Sequence","normalizers":[{"type":"NFC"},{"type":"Lowercase"}]},
    "pre_tokenizer":{"type":"Metaspace","replacement":"▁","prepend_scheme":"always","split":true},
    "added_tokens":[{"id":7,"content":"<x>","special":true,"lstrip":true}]})";
  auto tk = from_json(j);
  REQUIRE_MESSAGE(tk.ok(), tk.error().message);
  std::string in = "AB e\xCC\x81";
  std::vector<bpe::TokenSpan> spans;
  REQUIRE(tk->encode_spans(in, bpe::SpecialMode::kText, spans).ok());
  REQUIRE(spans.size() == 2);
  CHECK(spans[0].id == 5);  // "▁ab": the prefix takes no byte, "AB" is [0, 2)
  CHECK(spans[0].begin == 0);
  CHECK(spans[0].end == 2);
  CHECK(spans[1].id == 6);  // "▁é": the space and the decomposed e, [2, 6)
  CHECK(spans[1].begin == 2);
  CHECK(spans[1].end == 6);
  // Ids, count and spans are outputs of one plan.
  CHECK(*tk->count(in, bpe::SpecialMode::kText) == spans.size());
  // A special with lstrip takes the whitespace before it into its span.
  spans.clear();
  REQUIRE(tk->encode_spans("ab  <x>ab", bpe::SpecialMode::kAllow, spans).ok());
  REQUIRE(spans.size() == 3);
  CHECK(spans[0].end == 2);
  CHECK(spans[1].id == 7);
  CHECK(spans[1].begin == 2);
  CHECK(spans[1].end == 7);
  CHECK(spans[2].begin == 7);
  CHECK(spans[2].end == 9);
  CHECK_FALSE(tk->tiles_input(bpe::SpecialMode::kText));
  CHECK_FALSE(tk->can_cut());
}
