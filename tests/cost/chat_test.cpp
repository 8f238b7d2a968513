#include <doctest/doctest.h>

#include "core/mapped_file.hpp"
#include "cost/chat.hpp"
#include "formats/registry.hpp"

using namespace tok;

namespace {
std::size_t count_file(const char* file, const char* enc, const char* family) {
  auto f = MappedFile::open(std::string(TOK_TEST_DATA) + "/cost/" + file);
  REQUIRE(f.ok());
  auto msgs = cost::parse_chat(f->bytes(), file);
  REQUIRE_MESSAGE(msgs.ok(), msgs.error().message);
  auto tk = formats::load_tokenizer(enc);
  REQUIRE(tk.ok());
  auto rules = cost::chat_rules(family);
  REQUIRE(rules.ok());
  auto n = cost::count_chat(*msgs, *tk, *rules);
  REQUIRE(n.ok());
  return n->tokens;
}
}  // namespace

// The OpenAI cookbook ("How to count tokens with tiktoken") example messages:
// gpt-4 / gpt-3.5-turbo 129, gpt-4o / gpt-4o-mini 124, gpt-3.5-turbo-0301
// 127 prompt tokens, as the API reported. Re-checked with npm tiktoken.
TEST_CASE("chat overhead matches the OpenAI cookbook counts") {
  CHECK(count_file("cookbook_messages.json", "cl100k_base", "openai") == 129);
  CHECK(count_file("cookbook_messages.json", "o200k_base", "openai") == 124);
  CHECK(count_file("cookbook_messages.json", "cl100k_base", "openai-0301") == 127);
}

TEST_CASE("content parts: text parts count like a string, other parts are reported") {
  auto tk = formats::load_tokenizer("o200k_base");
  auto rules = *cost::chat_rules("openai");
  auto a = cost::parse_chat(R"([{"role":"user","content":"hello world"}])", "a");
  auto b = cost::parse_chat(
      R"({"messages":[{"role":"user","content":[{"type":"text","text":"hello world"},
      {"type":"image_url","image_url":{"url":"x"}}]}]})",
      "b");
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  auto na = cost::count_chat(*a, *tk, rules);
  auto nb = cost::count_chat(*b, *tk, rules);
  CHECK(na->tokens == nb->tokens);
  CHECK(na->tokens == 3 + 1 + 2 + 3);  // per message + "user" + "hello world" + priming
  CHECK(nb->ignored_parts == 1);
}

TEST_CASE("malformed chat files name the position") {
  auto r = cost::parse_chat("[\n {\"role\": \"user\", \"content\": }\n]", "chat.json");
  REQUIRE(!r.ok());
  CHECK(r.error().message.rfind("chat.json:2:", 0) == 0);
  auto s = cost::parse_chat(R"([{"role":"user"}, 5])", "chat.json");
  CHECK(s.error().message == "chat.json: messages[1]: expected an object, got number");
  auto t = cost::parse_chat(R"({"x": 1})", "chat.json");
  CHECK(!t.ok());
  CHECK(!cost::chat_rules("nope").ok());
}
