#include "core/id_text.hpp"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <string>

#include "core/output.hpp"
#include "temp_dir.hpp"

TEST_CASE("IdText prints separator and id like std::to_string, memoised or not") {
  tok::test::TempDir d;
  std::string path = d.file("ids");
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  REQUIRE(fd >= 0);
  std::string expect;
  {
    tok::Output out(fd, 64);  // small buffer: the 8-byte store meets every flush offset
    tok::IdText text(',', 200000);
    // Every digit count, the table's last id, ids past it (formatted afresh),
    // past the 6-digit packing limit, and each one twice (memoised the
    // second time).
    for (int round = 0; round < 2; ++round) {
      for (std::uint64_t id : {0ull, 7ull, 10ull, 99ull, 100ull, 4095ull, 12345ull, 199999ull,
                               200000ull, 999999ull, 1000000ull, 4294967295ull}) {
        text.put(out, id);
        expect += ',';
        expect += std::to_string(id);
      }
    }
    for (std::uint64_t id = 0; id < 3000; ++id) {
      text.put(out, id % 1000);
      expect += ',';
      expect += std::to_string(id % 1000);
    }
    out.flush();
  }
  ::close(fd);
  CHECK(tok::test::read_all(path) == expect);
}

TEST_CASE("IdText with a table larger than the packing limit still formats big ids") {
  tok::test::TempDir d;
  std::string path = d.file("big");
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  REQUIRE(fd >= 0);
  {
    tok::Output out(fd, 64);
    tok::IdText text(' ', 5000000);
    text.put(out, 1234567);
    text.put(out, 999999);
    out.flush();
  }
  ::close(fd);
  CHECK(tok::test::read_all(path) == " 1234567 999999");
}
