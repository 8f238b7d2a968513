#include "core/output.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace tok {

Output::Output(int fd, std::size_t capacity)
    : fd_(fd), buf_(new char[capacity]), cap_(capacity) {}

Output::~Output() {
  try {
    flush();
  } catch (...) {
  }
  delete[] buf_;
}

void Output::write_u64(std::uint64_t v) {
  if (cap_ - len_ < 20) flush();
  char tmp[20];
  int n = 0;
  do {
    tmp[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v);
  while (n) buf_[len_++] = tmp[--n];
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
