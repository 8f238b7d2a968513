#include "core/suggest.hpp"

#include <doctest/doctest.h>

TEST_CASE("suggest: close names by edit distance or containment, best first, at most three") {
  std::vector<std::string> known{"o200k_base", "cl100k_base", "gpt2",
                                 "llama3",     "r50k_base",   "p50k_base"};
  CHECK(tok::suggest("o200k_bse", known) == std::vector<std::string>{"o200k_base"});
  CHECK(tok::suggest("GPT2", known) == std::vector<std::string>{"gpt2"});
  CHECK(tok::suggest("llama", known) == std::vector<std::string>{"llama3"});
  CHECK(tok::suggest("", known).empty());
  CHECK(tok::suggest("zzzzzzzz", known).empty());
  CHECK(tok::suggest("50k_base", known).size() <= 3);
}
