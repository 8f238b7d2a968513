// The merge table cache: a second load reads the cached image and gives the
// same ids; a damaged cache file is rebuilt, never trusted.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../core/temp_dir.hpp"
#include "formats/registry.hpp"
#include "formats/table_cache.hpp"

using namespace tok;

namespace {

std::vector<bpe::TokenId> ids_of(const bpe::Tokenizer& tk) {
  return *tk.encode("Hello, wörld! 日本語のテキスト 12345 \xff\xfe", bpe::SpecialMode::kText);
}

}  // namespace

TEST_CASE("table cache: built once, then read; damage means a rebuild") {
  test::TempDir d;
  const char* old = std::getenv("XDG_CACHE_HOME");
  std::string saved = old ? old : "";
  ::setenv("XDG_CACHE_HOME", d.path.c_str(), 1);
  ::unsetenv("TOK_TABLE_CACHE");

  auto first = formats::load_tokenizer("cl100k_base");
  REQUIRE(first.ok());
  std::vector<std::filesystem::path> images;
  for (const auto& e : std::filesystem::directory_iterator(d.path / "tok" / "tables")) {
    images.push_back(e.path());
  }
  REQUIRE(images.size() == 1);
  auto second = formats::load_tokenizer("cl100k_base");
  REQUIRE(second.ok());
  CHECK(ids_of(*second) == ids_of(*first));

  // Damage the image in its middle: the load still succeeds, by rebuilding.
  {
    std::fstream f(images[0], std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(std::filesystem::file_size(images[0]) / 2));
    f.write("garbage!", 8);
  }
  auto third = formats::load_tokenizer("cl100k_base");
  REQUIRE(third.ok());
  CHECK(ids_of(*third) == ids_of(*first));
  // ...and the rebuilt image is good again.
  auto fourth = formats::load_tokenizer("cl100k_base");
  REQUIRE(fourth.ok());
  CHECK(ids_of(*fourth) == ids_of(*first));

  ::setenv("TOK_TABLE_CACHE", "0", 1);
  CHECK(formats::table_cache_path(std::string(1 << 20, 'x')).empty());
  ::unsetenv("TOK_TABLE_CACHE");
  if (old) {
    ::setenv("XDG_CACHE_HOME", saved.c_str(), 1);
  } else {
    ::unsetenv("XDG_CACHE_HOME");
  }
}

namespace {
Result<bpe::MergeTable> byte_table(int* builds) {
  ++*builds;
  std::vector<std::string> tokens;
  for (int b = 0; b < 256; ++b) tokens.push_back(std::string(1, static_cast<char>(b)));
  tokens.push_back("ab");
  return bpe::MergeTable::from_ranks(std::move(tokens));
}
}  // namespace

// The key is in the image's header, not only in its name: an image copied
// under another vocabulary's name is refused, and a FIFO there is skipped
// without blocking. A directory others may write is not used at all.
TEST_CASE("table cache: an image is used only for the vocabulary it was built from") {
  test::TempDir d;
  const char* old = std::getenv("XDG_CACHE_HOME");
  std::string saved = old ? old : "";
  ::setenv("XDG_CACHE_HOME", d.path.c_str(), 1);
  ::unsetenv("TOK_TABLE_CACHE");
  std::string a(formats::kTableCacheMinBytes, 'a'), b(formats::kTableCacheMinBytes, 'b');
  int builds = 0;
  auto build = [&] { return byte_table(&builds); };
  REQUIRE(formats::cached_merge_table(a, build).ok());
  REQUIRE(formats::cached_merge_table(a, build).ok());
  CHECK(builds == 1);  // the second load came from the cache
  std::filesystem::copy_file(formats::table_cache_path(a), formats::table_cache_path(b));
  REQUIRE(formats::cached_merge_table(b, build).ok());
  CHECK(builds == 2);  // a's image under b's name was not trusted

  std::filesystem::remove(formats::table_cache_path(a));
  REQUIRE(::mkfifo(formats::table_cache_path(a).c_str(), 0600) == 0);
  REQUIRE(formats::cached_merge_table(a, build).ok());  // would hang on a blocking open
  CHECK(builds == 3);
  CHECK(std::filesystem::is_regular_file(formats::table_cache_path(a)));

  std::filesystem::permissions(d.path / "tok" / "tables", std::filesystem::perms::others_write,
                               std::filesystem::perm_options::add);
  REQUIRE(formats::cached_merge_table(a, build).ok());
  CHECK(builds == 4);  // a world-writable directory is not read
  if (old) {
    ::setenv("XDG_CACHE_HOME", saved.c_str(), 1);
  } else {
    ::unsetenv("XDG_CACHE_HOME");
  }
}
