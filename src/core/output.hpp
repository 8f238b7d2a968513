// Output: a buffered writer for stdout (or any fd) that is fast for millions
// of small writes (token ids) and reports a closed pipe as BrokenPipe, which
// cli/ turns into a quiet exit 0 ("tok encode big | head" ends quietly).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tok {

struct BrokenPipe {};  // thrown when the reader of stdout has gone away
struct WriteFailed {
  std::string message;
};

class Output {
 public:
  explicit Output(int fd = 1, std::size_t capacity = 1 << 16);
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;
  ~Output();  // flushes, swallowing errors (call flush() to see them)

  void write(std::string_view s) {
    if (s.size() > cap_ - len_) {
      write_slow(s);
      return;
    }
    __builtin_memcpy(buf_ + len_, s.data(), s.size());
    len_ += s.size();
  }
  void put(char c) {
    if (len_ == cap_) flush();
    buf_[len_++] = c;
  }
  void write_u64(std::uint64_t v) {
    if (cap_ - len_ < kMaxDigits) flush();
    len_ += format_u64(v, buf_ + len_);
  }
  // A separator byte then v: the inner loop of `tok encode` (one call per id).
  void put_u64(char sep, std::uint64_t v) {
    if (cap_ - len_ < kMaxDigits + 1) flush();
    buf_[len_++] = sep;
    len_ += format_u64(v, buf_ + len_);
  }
  // Up to 7 bytes packed in w's low bytes, their count in its top byte
  // (IdText's words): one 8-byte store; the byte past them is overwritten
  // by the next write.
  void put_word(std::uint64_t w) {
    if (cap_ - len_ < 8) flush();
    __builtin_memcpy(buf_ + len_, &w, 8);
    len_ += w >> 56;
  }
  void flush();

  static constexpr std::size_t kMaxDigits = 20;
  // Writes the decimal digits of v at p (room for kMaxDigits); returns their count.
  static std::size_t format_u64(std::uint64_t v, char* p);

 private:
  void write_slow(std::string_view s);
  void write_all(const char* p, std::size_t n);
  int fd_;
  char* buf_;
  std::size_t cap_;
  std::size_t len_ = 0;
};

}  // namespace tok
