#include "core/output.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace tok {

// put() needs room for one byte after a flush: at least a small buffer.
Output::Output(int fd, std::size_t capacity)
    : fd_(fd),
      buf_(new char[std::max<std::size_t>(capacity, 64)]),
      cap_(std::max<std::size_t>(capacity, 64)) {}

Output::~Output() {
  try {
    flush();
  } catch (...) {
  }
  delete[] buf_;
}

namespace {
// "00" "01" ... "99": two digits per division (ids are mostly 4-6 digits).
constexpr char kDigitPairs[201] =
    "0001020304050607080910111213141516171819202122232425262728293031323334353637383940414243444546"
    "474849"
    "5051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596"
    "979899";

std::size_t digit_count(std::uint64_t v) {
  std::size_t n = 1;
  for (; v >= 10000; v /= 10000) n += 4;
  return n + (v >= 10) + (v >= 100) + (v >= 1000);
}
}  // namespace

std::size_t Output::format_u64(std::uint64_t v, char* p) {
  std::size_t n = digit_count(v);
  char* q = p + n;
  while (v >= 100) {
    std::size_t d = static_cast<std::size_t>(v % 100) * 2;
    v /= 100;
    *--q = kDigitPairs[d + 1];
    *--q = kDigitPairs[d];
  }
  if (v >= 10) {
    *--q = kDigitPairs[v * 2 + 1];
    *--q = kDigitPairs[v * 2];
  } else {
    *--q = static_cast<char>('0' + v);
  }
  return n;
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
