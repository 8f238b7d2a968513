// AtomicFile: write an output file so that readers only ever see the old file
// or the complete new one. Bytes go to a temporary file beside the target;
// commit() syncs and renames it into place. Destroying an uncommitted
// AtomicFile (error, exception) removes the temporary file, and so does a
// terminating signal (core/fatal_signals.hpp).
//
// What the output path names decides how it is written:
//   "-"                             standard output, written in place
//   a character device, FIFO, socket written in place, never replaced
//                                   (--html /dev/stdout, /dev/null, a pipe)
//   a symbolic link                 resolved; its target is replaced
//                                   atomically and the link stays
//   a block device, a directory     refused
//   anything else                   temporary file + rename
// In place there is nothing to undo: a failed write is still an error.
#pragma once

#include <cstdint>
#include <cstdio>
#include <span>
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

  // A closed pipe or FIFO reader (EPIPE) throws BrokenPipe, as Output does.
  Status write(std::string_view bytes);
  // Overwrites bytes already written at `offset` (a header whose fields are
  // known only at the end, such as a .npy array's length); later write()s
  // append again.
  Status write_at(std::uint64_t offset, std::string_view bytes);
  Status commit();
  const std::string& path() const { return path_; }
  // Whether write_at() can work: false for a pipe, FIFO or socket written
  // in place (ask before writing what would need it).
  bool seekable() const;
  bool in_place() const { return temp_.empty(); }

 private:
  friend Status commit_together(std::span<AtomicFile> files);
  AtomicFile() = default;
  Status finish();      // flush, sync and close, without renaming
  Status publish();     // the rename (nothing for an in-place output)
  void discard();       // closes and removes the temporary
  std::string path_;    // as given, for messages
  std::string target_;  // path_ with symbolic links resolved: what rename replaces
  std::string temp_;    // the temporary beside target_; empty when written in place
  std::FILE* file_ = nullptr;
  bool done_ = false;  // finish() succeeded; only publish() is left
};

// Commits several outputs of one command as a unit: every file is written
// and synced first, then all are renamed with terminating signals held back,
// so an interrupted command leaves all old files or all new ones. (A power
// loss in the microseconds between two renames can still mix them.)
Status commit_together(std::span<AtomicFile> files);

// Writes a whole file atomically.
Status write_file_atomic(const std::string& path, std::string_view bytes);

// Removes every temporary file still open; async-signal-safe (unlink only).
void remove_pending_temporaries();

}  // namespace tok
