// MappedFile: the bytes of a file, read-only. Regular files are mmap'd; pipes,
// stdin ("-") and other streams are read into memory. Errors name the path.
//
// A mapped file that shrinks while it is read (truncated, a rotated log)
// raises SIGBUS on the pages past its new end. Reading it with read(2)
// instead would avoid that, at the price of a copy and of anonymous memory
// the kernel cannot drop under pressure (a 5 GB log would need 5 GB of RAM);
// a sigsetjmp around every access would reach into every tokenizer loop and
// thread. So the SIGBUS handler (core/fatal_signals) maps zero pages over the
// vanished part and notes the file; reading goes on, and cli/ ends the
// command with an error naming it (shrunk_mapped_file()).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace tok {

// The most of a pipe, device or stdin read whole into memory: /dev/zero or an
// endless pipe given where a file is expected stops with an error here
// instead of growing. A regular file (mmap'd) has no such limit.
inline constexpr std::size_t kMaxStreamBytes = std::size_t{1} << 30;
// The same for inputs that are small by nature (JSON documents, vocabulary
// and catalog files), so /dev/zero given as one fails within a second.
inline constexpr std::size_t kMaxSmallStreamBytes = std::size_t{256} << 20;

class MappedFile {
 public:
  // path "-" reads standard input; a stream longer than max_stream_bytes is
  // an error naming the path.
  static Result<MappedFile> open(const std::string& path,
                                 std::size_t max_stream_bytes = kMaxStreamBytes);
  static MappedFile from_string(std::string data);

  MappedFile() = default;
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  std::string_view bytes() const { return {data_, size_}; }
  const char* data() const { return data_; }
  std::size_t size() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  void release();
  std::string path_;
  std::string owned_;  // used when the input could not be mapped
  const char* data_ = nullptr;
  std::size_t size_ = 0;
  bool mapped_ = false;
};

// The path of a mapped input that shrank while it was read ("" if none).
std::string shrunk_mapped_file();
// For the SIGBUS handler: if addr lies in a live mapping, replaces the pages
// from addr to the mapping's end with zeros, notes the file and returns true.
// Async-signal-safe.
bool recover_mapped_fault(void* addr);

// Reads a whole stream (by file descriptor) into a string; more than
// max_bytes is an error naming `name`.
Result<std::string> read_fd(int fd, const std::string& name,
                            std::size_t max_bytes = kMaxStreamBytes);
// One read(2) of up to n bytes into buf, retried on EINTR: the bytes read,
// 0 at the end of the stream; the error names `name`.
Result<std::size_t> read_some(int fd, char* buf, std::size_t n, const std::string& name);

}  // namespace tok
