#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "core/fatal_signals.hpp"
#include "core/mapped_file.hpp"
#include "temp_dir.hpp"

using tok::MappedFile;
using tok::test::TempDir;

TEST_CASE("MappedFile maps a regular file") {
  TempDir d;
  const std::string bytes("hello\0world\xff\0", 13);
  auto f = MappedFile::open(d.write("a", bytes));
  REQUIRE(f.ok());
  CHECK(f->bytes() == bytes);
  CHECK(f->path() == d.file("a"));
}

TEST_CASE("MappedFile of an empty file is empty, not an error") {
  TempDir d;
  auto f = MappedFile::open(d.write("empty", ""));
  REQUIRE(f.ok());
  CHECK(f->size() == 0);
  CHECK(f->bytes().empty());
}

TEST_CASE("MappedFile errors name the path and the problem") {
  TempDir d;
  auto missing = MappedFile::open(d.file("nope"));
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message == d.file("nope") + ": no such file");

  auto dir = MappedFile::open(d.path.string());
  REQUIRE_FALSE(dir.ok());
  CHECK(dir.error().message == d.path.string() + ": is a directory, expected a file");

  // A path through a regular file: ENOTDIR, reported with the system message.
  std::string f = d.write("f", "x");
  auto through = MappedFile::open(f + "/sub");
  REQUIRE_FALSE(through.ok());
  CHECK(through.error().message.find(f + "/sub: cannot open: ") == 0);
}

TEST_CASE("MappedFile reads a pipe (not mappable) fully") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  std::string payload(200000, 'z');  // larger than a pipe buffer: written by a child
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(fds[0]);
    std::size_t off = 0;
    while (off < payload.size()) {
      ssize_t w = ::write(fds[1], payload.data() + off, payload.size() - off);
      if (w <= 0) ::_exit(1);
      off += static_cast<std::size_t>(w);
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  auto r = tok::read_fd(fds[0], "pipe");
  ::close(fds[0]);
  REQUIRE(r.ok());
  CHECK(*r == payload);
}

TEST_CASE("MappedFile survives moves") {
  TempDir d;
  auto f = MappedFile::open(d.write("a", "abc"));
  REQUIRE(f.ok());
  MappedFile g = std::move(f).value();
  MappedFile h;
  h = std::move(g);
  CHECK(h.bytes() == "abc");
  CHECK(g.size() == 0);
  MappedFile s = MappedFile::from_string("owned");
  MappedFile t = std::move(s);
  CHECK(t.bytes() == "owned");
}

// A mapped input truncated under tok (a rotated log): the SIGBUS of reading
// past the new end is survived, the vanished part reads as zeros, and the
// file is named for the error cli/ reports.
TEST_CASE("MappedFile survives its file shrinking, and names it") {
  tok::install_fatal_signal_handlers();
  TempDir d;
  std::string path = d.write("log", std::string(1 << 20, 'x'));
  auto f = MappedFile::open(path);
  REQUIRE(f.ok());
  CHECK(tok::shrunk_mapped_file().empty());
  REQUIRE(::truncate(path.c_str(), 1000) == 0);
  std::size_t xs = 0;
  for (char c : f->bytes()) xs += c == 'x';
  // The 1000 bytes left, perhaps the rest of their page; the rest is zeros.
  CHECK(xs >= 1000);
  CHECK(xs <= 4096);
  CHECK(tok::shrunk_mapped_file() == path);
}
