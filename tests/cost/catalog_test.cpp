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
  CHECK(c.models().size() >= 500);  // every token-priced model of genai-prices
  std::regex date(R"(\d{4}-\d{2}-\d{2})");
  std::set<std::string> tokenizers;
  for (const auto& m : c.models()) {
    INFO(m.id);
    CHECK(m.price.input >= 0);
    CHECK(m.price.cached_input >= 0);
    CHECK(m.price.output >= 0);
    CHECK(std::regex_match(m.price.date, date));
    CHECK(m.price.source.find("@pydantic/genai-prices") != std::string::npos);
    if (m.max_output > 0) CHECK(m.context_window > 0);  // hand-kept entries have both
    for (std::size_t i = 1; i < m.price.tiers.size(); ++i) {
      CHECK(m.price.tiers[i].above > m.price.tiers[i - 1].above);
    }
    if (m.price.batch) CHECK((m.price.batch->factor > 0 && m.price.batch->factor <= 1));
    tokenizers.insert(m.tokenizer);
    if (m.provider == "anthropic" || m.id.rfind("gemini", 0) == 0) CHECK(m.estimate);
  }
  for (const auto& t : tokenizers) {
    INFO(t);
    auto tk = formats::load_tokenizer(t);
    if (!tk.ok()) CHECK_MESSAGE(kPending.count(t) == 1, t, ": ", tk.error().message);
  }
}

TEST_CASE("long-context tiers and batch rates come from the price data") {
  cost::Catalog c = shipped();
  const cost::ModelInfo* pro = c.find("gemini-2.5-pro");
  REQUIRE(pro);
  CHECK(pro->price.input == 1.25);
  REQUIRE(pro->price.tiers.size() == 1);
  CHECK(pro->price.tiers[0].above == 200000);
  CHECK(pro->price.tiers[0].input == 2.5);
  CHECK(pro->price.tiers[0].output == 15);
  const cost::ModelInfo* mini = c.find("gpt-4o-mini");
  REQUIRE((mini && mini->price.batch));
  CHECK(mini->price.batch->factor == 0.5);
}

TEST_CASE("the catalog holds hundreds of models, each with its tokenizer or marked an estimate") {
  cost::Catalog c = shipped();
  for (const char* id :
       {"claude-3-5-sonnet", "claude-3-haiku", "gemini-2.0-flash", "mistral-large-latest",
        "deepseek-reasoner", "llama-3.3-70b-versatile", "anthropic/claude-3-5-sonnet"}) {
    INFO(id);
    CHECK(c.find(id) != nullptr);
  }
  CHECK(c.find("claude-3-5-sonnet")->estimate);
  CHECK(c.find("llama-3.3-70b-versatile")->tokenizer == "llama3");
  CHECK(!c.find("llama-3.3-70b-versatile")->estimate);
  CHECK(c.find("gpt-4o-2024-05-13")->tokenizer == "o200k_base");
  CHECK(c.find("text-embedding-3-small")->tokenizer == "cl100k_base");
  // Names as providers spell them: dotted or dashed, dated snapshots.
  CHECK(c.find("claude-3.5-sonnet") == c.find("claude-3-5-sonnet"));
  CHECK(c.find("claude-sonnet-4.5") == c.find("claude-sonnet-4-5"));
  CHECK(c.find("claude-3-5-sonnet-20241022") == c.find("claude-3-5-sonnet"));
  CHECK(c.find("claude-3-5-sonnet@20240620") == c.find("claude-3-5-sonnet"));
  CHECK(c.find("gpt-4o-mini-2099-01-01") == c.find("gpt-4o-mini"));
  CHECK(c.find("qwen3-32b-turbo-x") == nullptr);  // not a snapshot suffix: no guess
  auto found = c.search({"claude", "sonnet"});
  CHECK(found.size() >= 3);
  for (const auto* m : found) CHECK(m->id.find("sonnet") != std::string::npos);
  CHECK(c.search({"no-such-model-anywhere"}).empty());
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

TEST_CASE("price tiers and batch rates parse, and bad ones are errors") {
  cost::Catalog c;
  Status s = c.add_json_text(
      R"({"models": [{"id": "t", "tokenizer": "o200k_base", "price": {"input": 1, "output": 2,
          "tiers": [{"above": 100, "input": 3}], "batch": {"factor": 0.5, "source": "doc"}}}]})",
      "t.json");
  REQUIRE_MESSAGE(s.ok(), s.error().message);
  const auto& p = c.find("t")->price;
  REQUIRE(p.tiers.size() == 1);
  CHECK(p.tiers[0].input == 3);
  CHECK(p.tiers[0].cached_input == 3);  // no cached price listed: billed as input
  CHECK(p.tiers[0].output == 2);        // not listed: the rate below it
  CHECK(p.batch->factor == 0.5);
  CHECK(c.add_json_text(
             R"({"models": [{"id": "x", "tokenizer": "t", "price": {"tiers": [{"input": 1}]}}]})",
             "f.json")
            .error()
            .message.find("above") != std::string::npos);
  CHECK(
      c.add_json_text(
           R"({"models": [{"id": "x", "tokenizer": "t", "price": {"tiers": [{"above": 5}, {"above": 5}]}}]})",
           "f.json")
          .error()
          .message.find("ascending") != std::string::npos);
  CHECK(c.add_json_text(
             R"({"models": [{"id": "x", "tokenizer": "t", "price": {"batch": {"factor": 2}}}]})",
             "f.json")
            .error()
            .message.find("factor") != std::string::npos);
}

TEST_CASE("bad catalogs and unknown models are clear errors") {
  cost::Catalog c;
  CHECK(
      c.add_json_text(R"({"models": [{"id": "x"}]})", "f.json").error().message.find("tokenizer") !=
      std::string::npos);
  CHECK(c.add_json_text(R"({"models": [{"id": "x", "tokenizer": "t", "price": {"input": -1}}]})",
                        "f.json")
            .error()
            .message.find("negative") != std::string::npos);
  CHECK(c.add_json_text("{\"models\": [\n  {,}]}", "f.json").error().message.find("f.json:2:") ==
        0);
  cost::Catalog s = shipped();
  auto r = s.get("gpt4o");
  REQUIRE(!r.ok());
  CHECK(r.error().message.find("did you mean gpt-4o") != std::string::npos);
}

TEST_CASE("catalog counts are whole numbers from 1: no wrapped negatives, no cut fractions") {
  auto msg = [](const char* fields) {
    cost::Catalog c;
    std::string text =
        std::string(R"({"models": [{"id": "m", "tokenizer": "t", )") + fields + "}]}";
    Status s = c.add_json_text(text, "f.json");
    return s.ok() ? std::string("ok") : s.error().message;
  };
  CHECK(msg(R"("context_window": 0)") ==
        "f.json: model 'm': field 'context_window' must be a whole number from 1 to "
        "18446744073709551615 (got 0)");
  CHECK(msg(R"("context_window": -1)").find("field 'context_window' must be a whole number") !=
        std::string::npos);
  CHECK(msg(R"("max_output": 1.5)").find("field 'max_output' must be a whole number") !=
        std::string::npos);
  CHECK(msg(R"("kv": {"layers": -1, "heads": 8, "kv_heads": 8, "head_dim": 64})") ==
        "f.json: model 'm': field 'layers' must be a whole number from 1 to 4294967295 (got -1)");
  CHECK(msg(R"("kv": {"layers": 4294967296, "heads": 8, "kv_heads": 8, "head_dim": 64})")
            .find("field 'layers'") != std::string::npos);
  CHECK(msg(R"("context_window": "big")").find("wrong type") != std::string::npos);
  CHECK(
      msg(R"("context_window": 8192.0, "kv": {"layers": 2, "heads": 8, "kv_heads": 8, "head_dim": 64})") ==
      "ok");
}

TEST_CASE("Gemini models name the published Gemini tokenizer; an unknown one is refused") {
  cost::Catalog c = shipped();
  std::size_t gemini = 0;
  for (const auto& m : c.models()) {
    INFO(m.id);
    bool is_gemini = m.id.find("gemini") != std::string::npos;
    gemini += is_gemini;
    CHECK((m.published_tokenizer == "gemini") == is_gemini);
    CHECK_FALSE(m.published);  // only load_default puts an installed one to use
  }
  CHECK(gemini == 78);
  auto bad = cost::parse_model(nlohmann::json::parse(R"({"id": "m", "tokenizer": "o200k_base",
                                                          "published_tokenizer": "nope"})"),
                               "t.json");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("'nope' is not a vocabulary tok can fetch") != std::string::npos);
}
