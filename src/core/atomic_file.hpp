// AtomicFile: write an output file so that readers only ever see the old file
// or the complete new one. Bytes go to a temporary file beside the target;
// commit() syncs and renames it into place. Destroying an uncommitted
// AtomicFile (error, exception) removes the temporary file. A SIGINT handler
// installed by cli/ removes registered temporaries too.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace tok {

class AtomicFile {
 public:
  static Result<AtomicFile> create(const std::string& path);

  AtomicFile(AtomicFile&& other) noexcept;
  AtomicFile& operator=(AtomicFile&&) = delete;
  AtomicFile(const AtomicFile&) = delete;
  ~AtomicFile();

  Status write(std::string_view bytes);
  // Overwrites bytes already written at `offset` (a header whose fields are
  // known only at the end, such as a .npy array's length); later write()s
  // append again.
  Status write_at(std::uint64_t offset, std::string_view bytes);
  Status commit();
  const std::string& path() const { return path_; }

 private:
  AtomicFile() = default;
  std::string path_;
  std::string temp_;
  std::FILE* file_ = nullptr;
  bool failed_ = false;
};

// Writes a whole file atomically.
Status write_file_atomic(const std::string& path, std::string_view bytes);

// Removes every temporary file still open; async-signal-safe enough for a
// SIGINT handler (unlink only).
void remove_pending_temporaries();

}  // namespace tok
