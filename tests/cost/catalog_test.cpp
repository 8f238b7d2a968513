#include <doctest/doctest.h>

#include <regex>
#include <set>

#include "cost/catalog.hpp"
#include "formats/registry.hpp"

using namespace tok;

namespace {
cost::Catalog shipped() {
  cost::Catalog c;
  Status s = c.add_file(std::string(TOK_VOCAB_DIR_FOR_TESTS) + "/models.json");
  REQUIRE_MESSAGE(s.ok(), s.error().message);
  return c;
}
// Vocabularies the formats engineer is adding; models using them resolve
// lazily and must fail with a clear error until they exist.
const std::set<std::string> kPending = {"llama3", "qwen3", "deepseek-v3", "mistral", "gemma3"};
}  // namespace

TEST_CASE("every shipped model is valid: tokenizer, prices, dates, sources") {
  cost::Catalog c = shipped();
  CHECK(c.models().size() >= 30);
  std::regex date(R"(\d{4}-\d{2}-\d{2})");
  for (const auto& m : c.models()) {
    INFO(m.id);
    CHECK(m.price.input >= 0);
    CHECK(m.price.cached_input >= 0);
    CHECK(m.price.output >= 0);
    CHECK(std::regex_match(m.price.date, date));
    CHECK(m.price.source.find("@pydantic/genai-prices") != std::string::npos);
    CHECK(m.context_window > 0);
    CHECK(m.max_output > 0);
    auto tk = formats::load_tokenizer(m.tokenizer);
    if (!tk.ok()) {
      CHECK_MESSAGE(kPending.count(m.tokenizer) == 1, m.tokenizer, ": ", tk.error().message);
    }
    if (m.estimate) CHECK(m.tokenizer == "o200k_base");
    if (m.provider == "anthropic" || m.id.rfind("gemini", 0) == 0) CHECK(m.estimate);
  }
}

TEST_CASE("OpenAI families map to their encodings") {
  cost::Catalog c = shipped();
  for (const char* id : {"gpt-4o", "gpt-4o-mini", "gpt-4.1", "o3", "o4-mini", "gpt-5"}) {
    REQUIRE(c.find(id));
    CHECK(c.find(id)->tokenizer == "o200k_base");
  }
  for (const char* id : {"gpt-4", "gpt-3.5-turbo", "gpt-4-turbo"}) {
    REQUIRE(c.find(id));
    CHECK(c.find(id)->tokenizer == "cl100k_base");
  }
  CHECK(c.find("GPT-4O-2024-08-06") == c.find("gpt-4o"));  // alias, any case
  CHECK(c.find("llama-3.1-8b")->kv.has_value());
  CHECK(c.find("deepseek-v3")->kv->attention == cost::Attention::kMla);
}

TEST_CASE("a user file overrides and adds models") {
  cost::Catalog c = shipped();
  Status s = c.add_json_text(
      R"({"models": [{"id": "gpt-4o", "tokenizer": "o200k_base", "context_window": 5,
          "price": {"input": 1, "output": 2, "date": "2030-01-01", "source": "mine"}},
         {"id": "my-model", "tokenizer": "cl100k_base", "context_window": 100}]})",
      "user.json");
  REQUIRE(s.ok());
  CHECK(c.find("gpt-4o")->context_window == 5);
  CHECK(c.find("gpt-4o")->price.cached_input == 1);  // defaults to the input price
  CHECK(c.find("my-model")->origin == "user.json");
}

TEST_CASE("bad catalogs and unknown models are clear errors") {
  cost::Catalog c;
  CHECK(c.add_json_text(R"({"models": [{"id": "x"}]})", "f.json").error().message.find("tokenizer") != std::string::npos);
  CHECK(c.add_json_text(R"({"models": [{"id": "x", "tokenizer": "t", "price": {"input": -1}}]})", "f.json")
            .error().message.find("negative") != std::string::npos);
  CHECK(c.add_json_text("{\"models\": [\n  {,}]}", "f.json").error().message.find("f.json:2:") == 0);
  cost::Catalog s = shipped();
  auto r = s.get("gpt4o");
  REQUIRE(!r.ok());
  CHECK(r.error().message.find("did you mean gpt-4o") != std::string::npos);
}

TEST_CASE("catalog counts are whole numbers from 1: no wrapped negatives, no cut fractions") {
  auto msg = [](const char* fields) {
    cost::Catalog c;
    std::string text = std::string(R"({"models": [{"id": "m", "tokenizer": "t", )") + fields + "}]}";
    Status s = c.add_json_text(text, "f.json");
    return s.ok() ? std::string("ok") : s.error().message;
  };
  CHECK(msg(R"("context_window": 0)") ==
        "f.json: model 'm': field 'context_window' must be a whole number from 1 to 18446744073709551615 (got 0)");
  CHECK(msg(R"("context_window": -1)").find("field 'context_window' must be a whole number") != std::string::npos);
  CHECK(msg(R"("max_output": 1.5)").find("field 'max_output' must be a whole number") != std::string::npos);
  CHECK(msg(R"("kv": {"layers": -1, "heads": 8, "kv_heads": 8, "head_dim": 64})") ==
        "f.json: model 'm': field 'layers' must be a whole number from 1 to 4294967295 (got -1)");
  CHECK(msg(R"("kv": {"layers": 4294967296, "heads": 8, "kv_heads": 8, "head_dim": 64})")
            .find("field 'layers'") != std::string::npos);
  CHECK(msg(R"("context_window": "big")").find("wrong type") != std::string::npos);
  CHECK(msg(R"("context_window": 8192.0, "kv": {"layers": 2, "heads": 8, "kv_heads": 8, "head_dim": 64})") == "ok");
}
