#include "core/output.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace tok {

// put() needs room for one byte after a flush: at least a small buffer.
Output::Output(int fd, std::size_t capacity)
    : fd_(fd), buf_(new char[std::max<std::size_t>(capacity, 64)]),
      cap_(std::max<std::size_t>(capacity, 64)) {}

Output::~Output() {
  try {
    flush();
  } catch (...) {
  }
  delete[] buf_;
}

void Output::write_u64(std::uint64_t v) {
  // Digits are formatted right to left in a local buffer: a number never
  // overruns buf_, whatever the capacity.
  char tmp[20];
  int n = 20;
  do {
    tmp[--n] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v);
  write(std::string_view(tmp + n, static_cast<std::size_t>(20 - n)));
}

void Output::flush() {
  std::size_t n = len_;
  len_ = 0;
  if (n) write_all(buf_, n);
}

void Output::write_slow(std::string_view s) {
  flush();
  if (s.size() >= cap_) {
    write_all(s.data(), s.size());
  } else {
    std::memcpy(buf_, s.data(), s.size());
    len_ = s.size();
  }
}

void Output::write_all(const char* p, std::size_t n) {
  while (n) {
    ssize_t w = ::write(fd_, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      if (errno == EPIPE) throw BrokenPipe{};
      throw WriteFailed{std::strerror(errno)};
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}

}  // namespace tok
