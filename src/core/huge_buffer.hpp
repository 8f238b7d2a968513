// HugeBuffer: a file read into anonymous memory advised for transparent huge
// pages (MADV_HUGEPAGE). For the merge table images (6-12 MB) that tables
// read in place: one read into a few 2 MB pages instead of thousands of 4 KB
// page faults on a mapping (o200k loads in ~13 ms instead of ~21 ms here;
// encoding speed was the same either way, within noise). Where huge pages
// are off, it is plain memory with the same contents.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace tok {

class HugeBuffer {
 public:
  static Result<HugeBuffer> read_file(const std::string& path);
  // The whole regular file open at fd, from offset 0 (`name` for messages).
  static Result<HugeBuffer> read_fd(int fd, const std::string& name);
  // A copy of bytes (`name` for the error message when memory runs out).
  static Result<HugeBuffer> copy_of(std::string_view bytes, const std::string& name);

  HugeBuffer() = default;
  HugeBuffer(HugeBuffer&& other) noexcept;
  HugeBuffer& operator=(HugeBuffer&& other) noexcept;
  HugeBuffer(const HugeBuffer&) = delete;
  HugeBuffer& operator=(const HugeBuffer&) = delete;
  ~HugeBuffer();

  std::string_view bytes() const { return {data_, size_}; }

 private:
  // size bytes, uninitialised (`name` for the error message).
  static Result<HugeBuffer> allocate(std::size_t size, const std::string& name);
  void release();
  char* data_ = nullptr;  // from huge_allocate(size_)
  std::size_t size_ = 0;
};

}  // namespace tok
