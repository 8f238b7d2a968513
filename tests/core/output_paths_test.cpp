// check_outputs: an output that is an input or another output is refused,
// whatever name reaches the file (symbolic link, hard link, "./", stdin);
// devices, missing inputs and names that are not files pass.
#include "core/output_paths.hpp"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "temp_dir.hpp"

using tok::check_outputs;
using tok::test::TempDir;

namespace {

// The error message, or "" when the outputs are accepted.
std::string check(std::vector<std::string> inputs, std::vector<std::string> outputs) {
  tok::Status s = check_outputs(inputs, outputs);
  return s.ok() ? "" : s.error().message;
}

}  // namespace

TEST_CASE("an output that is an input is refused, by any name") {
  TempDir d;
  std::string in = d.write("in.jsonl", "{}\n");
  CHECK(check({in}, {in}) == in + ": is also an input; write to another file");
  REQUIRE(::link(in.c_str(), d.file("hard").c_str()) == 0);
  CHECK(check({in}, {d.file("hard")}) ==
        d.file("hard") + ": is also an input (" + in + "); write to another file");
  REQUIRE(::symlink(in.c_str(), d.file("soft").c_str()) == 0);
  CHECK(check({d.file("soft")}, {in}) ==
        in + ": is also an input (" + d.file("soft") + "); write to another file");
  CHECK(check({"o200k_base", in}, {d.path.string() + "/./in.jsonl"}) != "");
  CHECK(check({in}, {d.file("out.bin")}) == "");
  CHECK(check({d.file("missing"), "o200k_base"}, {d.file("out.bin")}) == "");
}

TEST_CASE("an output that is another output is refused, existing or new") {
  TempDir d;
  std::string in = d.write("in.jsonl", "{}\n");
  std::string out = d.file("out.bin");
  CHECK(check({in}, {out, out}) == out + ": is also another output; write to another file");
  CHECK(check({in}, {out, d.path.string() + "/sub/../out.bin"}) != "");
  REQUIRE(::symlink(out.c_str(), d.file("dangling").c_str()) == 0);  // names the file to create
  CHECK(check({in}, {d.file("dangling"), out}) ==
        out + ": is also another output (" + d.file("dangling") + "); write to another file");
  d.write("out.bin", "old");
  CHECK(check({in}, {out, out}) != "");
  CHECK(check({in}, {out, d.file("idx")}) == "");
  CHECK(check({in}, {"", "-", "", "-"}) == "");
}

TEST_CASE("devices may be read and written; stdin is compared as the file it reads") {
  TempDir d;
  std::string in = d.write("in.jsonl", "{}\n");
  CHECK(check({"/dev/null"}, {"/dev/null", "/dev/null"}) == "");
  int saved = ::dup(0);
  int fd = ::open(in.c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  REQUIRE(::dup2(fd, 0) == 0);
  std::string got = check({"-"}, {in});
  ::dup2(saved, 0);
  ::close(saved);
  ::close(fd);
  CHECK(got == in + ": is also an input (<stdin>); write to another file");
}
