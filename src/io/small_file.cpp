#include "io/small_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace tok::io {

SmallRead read_small_file(const std::string& path, std::size_t max_bytes, std::string& buf,
                          int* stream_fd) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return SmallRead::kFailed;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    *stream_fd = fd;
    return SmallRead::kStream;
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return SmallRead::kFailed;
  }
  auto size = static_cast<std::size_t>(st.st_size);
  if (size >= max_bytes) {
    ::close(fd);
    return SmallRead::kLarge;
  }
  // One byte more than fstat says, to notice a file that grew meanwhile.
  buf.resize(size + 1);
  std::size_t got = 0;
  bool failed = false;
  while (got < buf.size()) {
    ssize_t n = ::read(fd, buf.data() + got, buf.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) failed = true;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  if (failed) return SmallRead::kFailed;
  if (got > size) return SmallRead::kLarge;  // grew: count it the general way
  buf.resize(got);
  return SmallRead::kRead;
}

}  // namespace tok::io
