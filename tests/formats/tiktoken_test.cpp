#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "../core/temp_dir.hpp"
#include "formats/registry.hpp"
#include "formats/table_cache.hpp"
#include "formats/tiktoken_file.hpp"

using namespace tok::formats;

TEST_CASE("parse_tiktoken validates with line numbers") {
  CHECK(parse_tiktoken("YQ== 0\nYg== 1\n", "v").ok());
  auto bad64 = parse_tiktoken("YQ== 0\n!!!! 1\n", "v");
  REQUIRE_FALSE(bad64.ok());
  CHECK(bad64.error().message == "v:2: bad base64 token '!!!!'");
  auto dup = parse_tiktoken("YQ== 0\nYg== 0\n", "v");
  REQUIRE_FALSE(dup.ok());
  CHECK(dup.error().message == "v:2: duplicate rank 0 (first on line 1)");
  auto gap = parse_tiktoken("YQ== 0\nYg== 2\n", "v");
  REQUIRE(gap.ok());
  REQUIRE(gap->gaps.size() == 1);
  CHECK(gap->gaps[0].rank == 1);
  CHECK(gap->gaps[0].line == 2);
  auto norank = parse_tiktoken("YQ==\n", "v");
  CHECK_FALSE(norank.ok());
  CHECK_FALSE(parse_tiktoken("", "v").ok());
  CHECK_FALSE(parse_tiktoken("YQ== 99999999999\n", "v").ok());
}

TEST_CASE("a rank far past the number of entries is refused, whatever holds them") {
  CHECK(check_rank_bound(256 + kMaxRankGap - 1, 256, "the file", "lines").ok());
  auto far = check_rank_bound(100000000, 257, "mergeable_ranks", "entries");
  REQUIRE_FALSE(far.ok());
  CHECK(far.error().message == "rank 100000000 but mergeable_ranks has only 257 entries");
}

TEST_CASE("base64 round trip and writer") {
  for (std::string s :
       std::vector<std::string>{"a", "ab", "abc", "abcd", std::string("\0\xff\x80", 3)}) {
    if (s.empty()) continue;
    auto t = parse_tiktoken(base64_encode(s) + " 0\n", "x");
    REQUIRE(t.ok());
    CHECK(*t->tokens[0] == s);
  }
  std::vector<std::string> toks = {"a", "b", "ab"};
  auto back = parse_tiktoken(write_tiktoken(toks), "x");
  REQUIRE(back->tokens.size() == 3);
  CHECK(*back->tokens[2] == "ab");
}

// What makes a built-in load fast is the table cache: after the first load
// every run reads the built table from it (table_cache_test: a second load
// reads the image). So each built-in's vocabulary must be big enough to be
// cached, and have its image there once loaded. A timing would say nothing
// on a loaded machine or under a sanitizer.
TEST_CASE("built-in encodings load, leave their table in the cache, and resolve names") {
  tok::test::TempDir cache;
  const char* old = std::getenv("XDG_CACHE_HOME");
  std::string saved = old ? old : "";
  ::setenv("XDG_CACHE_HOME", cache.path.c_str(), 1);
  ::unsetenv("TOK_TABLE_CACHE");
  for (const char* name :
       {"o200k_base", "cl100k_base", "p50k_base", "r50k_base", "gpt2", "o200k"}) {
    auto tk = load_tokenizer(name);
    REQUIRE_MESSAGE(tk.ok(), name);
  }
  for (const char* file : {"o200k_base", "cl100k_base", "p50k_base", "r50k_base"}) {
    std::string source =
        tok::test::read_all(std::string(TOK_VOCAB_DIR_FOR_TESTS) + "/" + file + ".tiktoken");
    REQUIRE_MESSAGE(source.size() >= kTableCacheMinBytes, file);
    std::string image = table_cache_path(source);
    REQUIRE_MESSAGE(!image.empty(), file);
    CHECK_MESSAGE(std::filesystem::is_regular_file(image),
                  file << ": no cached table at " << image);
  }
  if (old) {
    ::setenv("XDG_CACHE_HOME", saved.c_str(), 1);
  } else {
    ::unsetenv("XDG_CACHE_HOME");
  }
  auto unknown = load_tokenizer("o200k_bse");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().message.find("did you mean o200k_base") != std::string::npos);
}
