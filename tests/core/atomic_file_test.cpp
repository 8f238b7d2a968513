#include <doctest/doctest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "core/atomic_file.hpp"
#include "core/mapped_file.hpp"
#include "temp_dir.hpp"

using tok::AtomicFile;
using tok::test::read_all;
using tok::test::TempDir;

TEST_CASE("AtomicFile commit replaces the target and leaves no temporary") {
  TempDir d;
  std::string target = d.write("out.txt", "old");
  auto f = AtomicFile::create(target);
  REQUIRE(f.ok());
  REQUIRE(f->write("new ").ok());
  REQUIRE(f->write("contents").ok());
  CHECK(read_all(target) == "old");  // readers see the old file until commit
  CHECK(d.entries() == 2);           // target + temporary
  REQUIRE(f->commit().ok());
  CHECK(read_all(target) == "new contents");
  CHECK(d.entries() == 1);
  CHECK_FALSE(f->write("more").ok());
  CHECK_FALSE(f->commit().ok());
}

TEST_CASE("an AtomicFile destroyed before commit leaves the old file intact") {
  TempDir d;
  std::string target = d.write("out.txt", "previous");
  {
    auto f = AtomicFile::create(target);
    REQUIRE(f.ok());
    REQUIRE(f->write(std::string(100000, 'p')).ok());
  }
  CHECK(read_all(target) == "previous");
  CHECK(d.entries() == 1);
}

TEST_CASE("a moved AtomicFile still commits, and aborts cleanly") {
  TempDir d;
  auto f = AtomicFile::create(d.file("a"));
  REQUIRE(f.ok());
  AtomicFile g = std::move(f).value();
  REQUIRE(g.write("x").ok());
  REQUIRE(g.commit().ok());
  CHECK(read_all(d.file("a")) == "x");
  CHECK(d.entries() == 1);
}

TEST_CASE("write_file_atomic creates a new file") {
  TempDir d;
  REQUIRE(tok::write_file_atomic(d.file("n"), "data").ok());
  CHECK(read_all(d.file("n")) == "data");
  CHECK(d.entries() == 1);
}

TEST_CASE("AtomicFile errors: missing directory, target is a directory") {
  TempDir d;
  auto missing = AtomicFile::create(d.file("no/such/dir/out"));
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message.find("cannot create output file") != std::string::npos);

  std::filesystem::create_directory(d.file("sub"));
  auto onto_dir = tok::write_file_atomic(d.file("sub"), "x");
  REQUIRE_FALSE(onto_dir.ok());
  CHECK(onto_dir.error().message == d.file("sub") + ": is a directory");
  CHECK(d.entries() == 1);  // only sub/: the temporary is gone
}

TEST_CASE("remove_pending_temporaries deletes open temporaries (the SIGINT path)") {
  TempDir d;
  auto f = AtomicFile::create(d.file("t"));
  REQUIRE(f.ok());
  REQUIRE(f->write("partial").ok());
  CHECK(d.entries() == 1);
  tok::remove_pending_temporaries();
  CHECK(d.entries() == 0);
}

// A file size limit (ulimit -f) makes write() fail with EFBIG once SIGXFSZ is
// ignored, as main.cpp does. Run in a child so the limit stays there.
TEST_CASE("a full disk / size limit gives a clear error and keeps the old file") {
  TempDir d;
  std::string target = d.write("big.bin", "previous");
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(fds[0]);
    ::signal(SIGXFSZ, SIG_IGN);
    struct rlimit rl {
      65536, 65536
    };
    ::setrlimit(RLIMIT_FSIZE, &rl);
    std::string msg = "no error";
    {
      // Scoped: the failed AtomicFile must be destroyed (removing its
      // temporary) before _exit, as when a tok command returns its error.
      auto f = AtomicFile::create(target);
      if (f.ok()) {
        auto st = f->write(std::string(1 << 20, 'b'));
        if (st.ok()) st = f->commit();
        if (!st.ok()) msg = st.error().message;
      }
    }
    (void)!::write(fds[1], msg.data(), msg.size());
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string msg = tok::read_fd(fds[0], "pipe").value();
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status));
  CHECK(msg == target + ": cannot write: file too large (size limit reached)");
  CHECK(read_all(target) == "previous");
  CHECK(d.entries() == 1);
}

TEST_CASE("a symbolic link output: its target is replaced, the link stays") {
  TempDir d;
  d.write("real", "old");
  std::filesystem::create_symlink("real", d.file("link"));
  REQUIRE(tok::write_file_atomic(d.file("link"), "new").ok());
  CHECK(std::filesystem::is_symlink(d.file("link")));
  CHECK(read_all(d.file("real")) == "new");
  CHECK(d.entries() == 2);
}

TEST_CASE("commit_together renames all outputs only after every one is written") {
  TempDir d;
  d.write("a", "old a");
  d.write("b", "old b");
  std::vector<AtomicFile> files;
  files.push_back(AtomicFile::create(d.file("a")).value());
  files.push_back(AtomicFile::create(d.file("b")).value());
  REQUIRE(files[0].write("new a").ok());
  REQUIRE(files[1].write("new b").ok());
  CHECK(files[0].seekable());
  CHECK(read_all(d.file("a")) == "old a");
  REQUIRE(tok::commit_together(files).ok());
  CHECK(read_all(d.file("a")) == "new a");
  CHECK(read_all(d.file("b")) == "new b");
  CHECK(d.entries() == 2);
}

TEST_CASE("an output that is a FIFO is written in place, never replaced") {
  TempDir d;
  REQUIRE(::mkfifo(d.file("p").c_str(), 0600) == 0);
  std::string got;
  std::thread reader([&] { got = read_all(d.file("p")); });
  {
    auto f = AtomicFile::create(d.file("p"));
    REQUIRE(f.ok());
    CHECK(f->in_place());
    CHECK_FALSE(f->seekable());  // so --format npy can refuse it before writing
    REQUIRE(f->write("through the pipe").ok());
    REQUIRE(f->commit().ok());
  }
  reader.join();
  CHECK(got == "through the pipe");
  struct stat st {};
  REQUIRE(::lstat(d.file("p").c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));
  CHECK(d.entries() == 1);
}
