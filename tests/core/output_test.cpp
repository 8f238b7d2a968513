#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "core/mapped_file.hpp"
#include "core/output.hpp"
#include "temp_dir.hpp"

using tok::Output;

TEST_CASE("Output buffers small writes, numbers and large writes in order") {
  tok::test::TempDir d;
  std::string path = d.file("o");
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  REQUIRE(fd >= 0);
  std::string expect;
  {
    Output out(fd, 16);  // tiny buffer: exercises every slow path
    out.write_u64(0);
    out.put(' ');
    out.write_u64(UINT64_MAX);
    out.write("|");
    std::string big(1000, 'b');
    out.write(big);
    out.write("end");
    out.flush();
    expect = "0 18446744073709551615|" + big + "end";
  }
  ::close(fd);
  CHECK(tok::test::read_all(path) == expect);
}

TEST_CASE("Output formats every digit count like std::to_string, with separators") {
  tok::test::TempDir d;
  std::string path = d.file("n");
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  REQUIRE(fd >= 0);
  std::string expect;
  {
    Output out(fd, 64);  // small: put_u64 flushes often
    std::uint64_t v = 0;
    for (int digits = 0; digits < 20; ++digits) {
      for (std::uint64_t x : {v, v + 1, v * 9 + 9, v ? v - 1 : 0}) {
        out.put_u64(',', x);
        expect += ',';  // (not "," + to_string: gcc 12 -Wrestrict false positive)
        expect += std::to_string(x);
        out.write_u64(x);
        expect += std::to_string(x);
      }
      v = v ? v * 10 : 1;
    }
    out.put_u64(' ', UINT64_MAX);
    expect += ' ';
    expect += std::to_string(UINT64_MAX);
    out.flush();
  }
  ::close(fd);
  CHECK(tok::test::read_all(path) == expect);
}

TEST_CASE("Output to a closed pipe throws BrokenPipe (quiet exit in cli)") {
  ::signal(SIGPIPE, SIG_IGN);
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  ::close(fds[0]);
  bool broken = false;
  try {
    Output out(fds[1]);
    out.write("data");
    out.flush();
  } catch (const tok::BrokenPipe&) {
    broken = true;
  }
  ::close(fds[1]);
  CHECK(broken);
}

TEST_CASE("Output to a full device throws WriteFailed with the system message") {
  int fd = ::open("/dev/full", O_WRONLY);
  REQUIRE(fd >= 0);
  std::string message;
  try {
    Output out(fd);
    out.write("data");
    out.flush();
  } catch (const tok::WriteFailed& e) {
    message = e.message;
  }
  ::close(fd);
  CHECK(message == "No space left on device");
}

TEST_CASE("the Output destructor swallows errors (flush() is where they show)") {
  // A destructor that let WriteFailed out would end the program (destructors
  // are noexcept); the lambda's call is where it would show here.
  static_assert(std::is_nothrow_destructible_v<Output>);
  int fd = ::open("/dev/full", O_WRONLY);
  REQUIRE(fd >= 0);
  bool destroyed = false;
  auto write_unflushed = [&] {
    {
      Output out(fd);
      out.write("unflushed");
    }
    destroyed = true;
  };
  CHECK_NOTHROW(write_unflushed());
  CHECK(destroyed);
  // The same write, flushed, does report the error the destructor swallowed.
  bool failed = false;
  try {
    Output out(fd);
    out.write("unflushed");
    out.flush();
  } catch (const tok::WriteFailed&) {
    failed = true;
  }
  CHECK(failed);
  ::close(fd);
}

TEST_CASE("the Output destructor flushes what was written") {
  tok::test::TempDir d;
  std::string path = (d.path / "out").string();
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  REQUIRE(fd >= 0);
  {
    Output out(fd);
    out.write("unflushed");
    out.write_u64(42);
  }
  ::close(fd);
  CHECK(tok::test::read_all(path) == "unflushed42");
}
