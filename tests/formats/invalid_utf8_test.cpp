// Invalid UTF-8 in vocabularies whose initial symbols are characters
// (SentencePiece-style BPE with byte fallback, no pre-tokenizer to cut the
// text at invalid bytes): each invalid byte is a symbol of its own, encoded
// with its byte token (or <unk> where the vocabulary has none), and the text
// after it is encoded as the text it is (docs/encode.md, "Invalid UTF-8").
#include <doctest/doctest.h>

#include <fmt/format.h>

#include <random>
#include <string>
#include <vector>

#include "formats/hf_tokenizer.hpp"

using namespace tok;
using Ids = std::vector<bpe::TokenId>;

namespace {

Result<bpe::Tokenizer> from_json(const std::string& text) {
  return formats::load_hf_tokenizer_json(text, "/nonexistent/tokenizer.json", "t");
}

// Like gemini's tokenizer.json: spaces to "▁", no pre-tokenizer, byte
// fallback, but byte tokens for only some bytes (here 0xE5 and 0xFF, not
// 0x09 or 0x61): "\t" and "a" are tokens as characters.
const char* kGeminiLike = R"({"model":{"type":"BPE","byte_fallback":true,"unk_token":"<unk>",
  "vocab":{"<unk>":0,"<0xE5>":1,"<0xFF>":2,"\t":3,"a":4,"b":5,"ab":6,"▁":7,"é":8},
  "merges":["a b"]},
  "normalizer":{"type":"Replace","pattern":{"String":" "},"content":"▁"}})";

// Like Mistral's: a byte token for every byte (id = the byte), "▁" prefix
// and spaces.
std::string mistral_like() {
  std::string vocab = R"("<unk>":256,"a":257,"b":258,"ab":259,"▁":260,"▁ab":261,"é":262)";
  for (int b = 0; b < 256; ++b) vocab += fmt::format(R"(,"<0x{:02X}>":{})", b, b);
  return R"({"model":{"type":"BPE","byte_fallback":true,"unk_token":"<unk>","vocab":{)" + vocab +
         R"(},"merges":["a b","▁ ab"]},
  "normalizer":{"type":"Sequence","normalizers":[{"type":"Prepend","prepend":"▁"},
    {"type":"Replace","pattern":{"String":" "},"content":"▁"}]}})";
}

Ids encode(const bpe::Tokenizer& tk, std::string_view text) {
  auto ids = tk.encode(text, bpe::SpecialMode::kText);
  REQUIRE_MESSAGE(ids.ok(), ids.error().message);
  return *ids;
}

}  // namespace

TEST_CASE("invalid UTF-8: a truncated lead byte does not take the ASCII after it (gemini-like)") {
  auto tk = from_json(kGeminiLike);
  REQUIRE_MESSAGE(tk.ok(), tk.error().message);
  // 0xE5 starts a 3-byte character; "\t" and "a" are not its continuation.
  CHECK(encode(*tk, "\xE5\tab") == Ids{1, 3, 6});
  CHECK(encode(*tk,
               "\xE5"
               "ab") == Ids{1, 6});
  CHECK(encode(*tk, "ab\xE5") == Ids{6, 1});
  // A byte with no token is <unk>, and only that byte.
  CHECK(encode(*tk, "\xE4\tab") == Ids{0, 3, 6});
  // A 2-byte lead before a valid character.
  CHECK(encode(*tk, "\xC3\xC3\xA9") == Ids{0, 8});
  // decode gives the bytes back where every byte had a token.
  CHECK(*tk->decode(encode(*tk, "\xE5\tab\xFF")) == "\xE5\tab\xFF");
}

TEST_CASE("invalid UTF-8: the same ids after any invalid byte (mistral-like)") {
  auto tk = from_json(mistral_like());
  REQUIRE_MESSAGE(tk.ok(), tk.error().message);
  // "▁" then the byte, then "a" as the character token, whatever the byte.
  CHECK(encode(*tk,
               "\xE5"
               "a") == Ids{260, 0xE5, 257});
  CHECK(encode(*tk,
               "\xFF"
               "a") == Ids{260, 0xFF, 257});
  CHECK(encode(*tk,
               "\xF0\x9F"
               "ab ab") == Ids{260, 0xF0, 0x9F, 259, 261});
}

TEST_CASE("invalid UTF-8: the text after an invalid byte is encoded as on its own") {
  auto tk = from_json(kGeminiLike);
  REQUIRE_MESSAGE(tk.ok(), tk.error().message);
  const char* units[] = {"a", "b", "ab", "\t", " ", "\xC3\xA9", "\xE5", "\xFF", "\xC3", "\xF0\x9F"};
  std::mt19937 rng(7);
  for (int round = 0; round < 500; ++round) {
    std::string head, tail;
    for (int k = rng() % 6; k > 0; --k) head += units[rng() % 10];
    for (int k = rng() % 6; k > 0; --k) tail += units[rng() % 6];  // valid text only
    Ids whole = encode(*tk, head + "\xE5" + tail);
    Ids after = encode(*tk, tail);
    REQUIRE(whole.size() >= after.size() + 1);
    CHECK(Ids(whole.end() - static_cast<std::ptrdiff_t>(after.size()), whole.end()) == after);
    CHECK(whole[whole.size() - after.size() - 1] == 1);  // <0xE5>
  }
  // A piece long enough for the long-piece merge takes the same symbols.
  std::string long_text;
  Ids expected;
  while (long_text.size() < 5000) {
    long_text += "\xE5\tab";
    expected.insert(expected.end(), {1, 3, 6});
  }
  CHECK(encode(*tk, long_text) == expected);
}
