#include <doctest/doctest.h>

#include <string>

#include "io/glob.hpp"
#include "io/ignore_rules.hpp"

using namespace tok::io;

TEST_CASE("glob") {
  CHECK(glob_match("*.txt", "a.txt"));
  CHECK(!glob_match("*.txt", "d/a.txt"));
  CHECK(glob_match("**/a.txt", "a.txt"));
  CHECK(glob_match("**/a.txt", "x/y/a.txt"));
  CHECK(glob_match("a/**/b", "a/b"));
  CHECK(glob_match("a/**/b", "a/x/y/b"));
  CHECK(glob_match("a/**", "a/x/y"));
  CHECK(!glob_match("a/**", "b/x"));
  CHECK(glob_match("file?.[ch]", "file1.c"));
  CHECK(!glob_match("file?.[!ch]", "file1.c"));
  CHECK(glob_match("[a-c]x", "bx"));
  CHECK(glob_match("\\*x", "*x"));
  CHECK(!glob_match("\\*x", "ax"));
}

TEST_CASE("glob: stars stay inside a component, ** crosses them, backtracking is bounded") {
  CHECK(glob_match("*a*b", "xaxb"));
  CHECK(!glob_match("*a*b", "xa/xb"));
  CHECK(glob_match("a*/b", "ax/b"));
  CHECK(!glob_match("a*", "ab/c"));
  CHECK(glob_match("*", ""));
  CHECK(glob_match("**", "x/y/z"));
  CHECK(glob_match("**/x/**/y", "a/x/b/c/y"));
  CHECK(glob_match("**/x/**/y", "x/y"));
  CHECK(!glob_match("**/x/**/y", "x/y/z"));
  CHECK(glob_match("a/**/b/*.c", "a/q/b/w/b/z.c"));
  CHECK(!glob_match("a/**", "a"));
  CHECK(glob_match("a/**", "a/"));
  CHECK(glob_match("a**b", "axxb"));
  CHECK(!glob_match("a**b", "ax/xb"));
  CHECK(glob_match("a\\/b", "a/b"));
  CHECK(glob_match("?", "x"));
  CHECK(!glob_match("?", "/"));
  CHECK(glob_match("[", "["));
  // Was exponential: 10 stars against 44 letters took 26 s, 12 over 100 s.
  std::string name(44, 'a'), pattern;
  for (int i = 0; i < 20; ++i) pattern += "*a";
  CHECK(!glob_match(pattern + "*b", name));
  CHECK(glob_match(pattern + "*", name));
  std::string deep;
  for (int i = 0; i < 40; ++i) deep += "a/";
  CHECK(!glob_match("**/a/**/a/**/a/**/a/**/a/**/a/**/b", deep + "a"));
}

TEST_CASE("gitignore: unanchored, anchored, dir-only, negation, last rule wins") {
  IgnoreRules r = IgnoreRules::parse(
      "# comment\n\n*.log\n!keep.log\n/build\nout/\ndocs/*.tmp\n**/cache/**\nspace\\ \n", "");
  CHECK(r.match("a.log", false) == IgnoreVerdict::kIgnore);
  CHECK(r.match("d/e/a.log", false) == IgnoreVerdict::kIgnore);
  CHECK(r.match("d/keep.log", false) == IgnoreVerdict::kInclude);
  CHECK(r.match("build", true) == IgnoreVerdict::kIgnore);
  CHECK(r.match("src/build", true) == IgnoreVerdict::kNone);  // anchored
  CHECK(r.match("out", true) == IgnoreVerdict::kIgnore);
  CHECK(r.match("out", false) == IgnoreVerdict::kNone);  // dir-only
  CHECK(r.match("x/out", true) == IgnoreVerdict::kIgnore);
  CHECK(r.match("docs/a.tmp", false) == IgnoreVerdict::kIgnore);
  CHECK(r.match("docs/x/a.tmp", false) == IgnoreVerdict::kNone);
  CHECK(r.match("a/cache/b/c", false) == IgnoreVerdict::kIgnore);
  CHECK(r.match("space ", false) == IgnoreVerdict::kIgnore);
}

TEST_CASE("rules of a subdirectory apply below it and override the parent") {
  IgnoreStack st;
  st.push(IgnoreRules::parse("*.md\n", ""));
  st.push(IgnoreRules::parse("!README.md\n/local\n", "sub"));
  CHECK(st.ignored("x.md", false));
  CHECK(st.ignored("sub/x.md", false));
  CHECK(!st.ignored("sub/README.md", false));
  CHECK(st.ignored("README.md", false));
  CHECK(st.ignored("sub/local", false));
  CHECK(!st.ignored("local", false));
}
