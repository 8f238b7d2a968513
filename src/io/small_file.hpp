// Reading the many small files of a directory walk. A tree of 12,000 headers
// is mostly per-file overhead: mmap and munmap for each file cost page faults
// and, with several threads, TLB shootdowns. A worker instead reads each small
// file into one buffer it reuses (open, fstat, read, close).
#pragma once

#include <cstddef>
#include <string>

namespace tok::io {

enum class SmallRead {
  kRead,    // the whole file is in the buffer
  kLarge,   // a regular file of at least max_bytes: left for the caller
  kStream,  // a pipe, device or socket: *stream_fd is its open fd, the caller's to close
  kFailed,  // not opened, a directory, or a read error: the caller reports it (MappedFile)
};

// A FIFO is opened once only: its writer may be gone before a second open,
// which would then wait forever; so a stream comes back open.
SmallRead read_small_file(const std::string& path, std::size_t max_bytes, std::string& buf,
                          int* stream_fd);

}  // namespace tok::io
