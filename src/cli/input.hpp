// Reading command inputs: FILE or "-" (stdin) as raw bytes.
#pragma once

#include <string>

#include "core/mapped_file.hpp"
#include "core/result.hpp"

namespace tok::cli {

// Opens FILE, or stdin for "" and "-" (saying so when stdin is a terminal).
Result<MappedFile> open_input(const std::string& path);

// When stdin is a terminal, says on stderr (once per run) that tok is
// reading it, as llama-cli does: otherwise a command given no input waits
// silently and looks hung. Call before reading stdin.
void note_terminal_stdin();

// Is fd a pipe, terminal, socket or device, whose input may never end (not
// a regular file or directory)? encode and decode then work as it arrives.
bool is_stream(int fd);
// Opens `path` when it is such a stream (a named pipe waits for its writer
// here, as `cat` does): the fd, which the caller closes; -1 for a regular
// file, a directory or a path that cannot be opened (open_input then reads
// it or names the error).
int open_if_stream(const std::string& path);

// Token bytes on one line for display: text::escape_terminal, with double
// quotes escaped too.
std::string escape_bytes(std::string_view bytes);

}  // namespace tok::cli
