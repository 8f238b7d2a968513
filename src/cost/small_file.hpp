// Reading the many small files of a directory walk. A tree of 12,000 headers
// is mostly per-file overhead: mmap and munmap for each file cost page faults
// and, with several threads, TLB shootdowns. A worker instead reads each small
// file into one buffer it reuses (open, fstat, read, close).
#pragma once

#include <cstddef>
#include <string>

namespace tok::cost {

enum class SmallRead {
  kRead,    // the whole file is in the buffer
  kLarge,   // a regular file of at least max_bytes: left for the caller
  kFailed,  // not opened or not a regular file: the caller reports it (MappedFile)
};

SmallRead read_small_file(const std::string& path, std::size_t max_bytes, std::string& buf);

}  // namespace tok::cost
