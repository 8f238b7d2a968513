// Batch request lines (tok count --batch): accepted shapes, max_tokens, and
// one-line errors naming FILE:LINE.
#include <doctest/doctest.h>

#include "cost/batch.hpp"

using tok::cost::parse_batch_request;

TEST_CASE("batch: a request line") {
  auto r = parse_batch_request(
      R"({"custom_id":"r1","body":{"messages":[{"role":"user","content":"hi"}],"max_tokens":7}})",
      "b.jsonl:1");
  REQUIRE_MESSAGE(r.ok(), r.error().message);
  CHECK(r->custom_id == "r1");
  CHECK(r->messages.size() == 1);
  CHECK(r->max_tokens == 7u);
  auto c = parse_batch_request(
      R"({"body":{"messages":[],"max_completion_tokens":18446744073709551615}})", "b.jsonl:2");
  REQUIRE(c.ok());
  CHECK(c->custom_id.empty());
  CHECK(c->max_tokens == UINT64_MAX);
  auto none = parse_batch_request(R"({"body":{"messages":[],"max_tokens":-1}})", "b.jsonl:3");
  REQUIRE(none.ok());
  CHECK_FALSE(none->max_tokens.has_value());
}

TEST_CASE("batch: errors name the line") {
  auto msg = [](std::string_view line) {
    auto r = parse_batch_request(line, "b.jsonl:4");
    REQUIRE_FALSE(r.ok());
    return r.error().message;
  };
  CHECK(msg("{\"body\": ").rfind("b.jsonl:4:", 0) == 0);
  CHECK(msg("[1]") == "b.jsonl:4: expected a batch request {\"custom_id\", \"body\": {...}}");
  CHECK(msg(R"({"body":{}})") == "b.jsonl:4: body has no 'messages'");
  CHECK(msg(R"({"body":{"messages":[3]}})") ==
        "b.jsonl:4: body: messages[0]: expected an object, got number");
}
