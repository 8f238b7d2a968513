#include "cli/input.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

#include "text/escape.hpp"

namespace tok::cli {

Result<MappedFile> open_input(const std::string& path) {
  if (path.empty() || path == "-") note_terminal_stdin();
  return MappedFile::open(path.empty() ? std::string("-") : path);
}

void note_terminal_stdin() {
  static bool said = false;
  if (said || ::isatty(STDIN_FILENO) != 1) return;
  said = true;
  std::fputs("tok: reading standard input (Ctrl-D to end)\n", stderr);
}

bool is_stream(int fd) {
  struct stat st {};
  return ::fstat(fd, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

int open_if_stream(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  if (is_stream(fd)) return fd;
  ::close(fd);
  return -1;
}

std::string escape_bytes(std::string_view bytes) {
  return text::escape_terminal(bytes, {.quote = true});
}

}  // namespace tok::cli
