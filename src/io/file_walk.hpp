// Expands command inputs (files, directories, "-") into the list of files to
// count, chunk or train on: the one walker of every command and of Python.
//
// Directories are walked recursively in sorted order, skipping .git and what
// git would ignore, as git and ripgrep do: inside a git repository, the
// repository's .git/info/exclude and every .gitignore from the repository
// root down to each file apply, also those above the directory named
// (`tok count sub` honours the root's `node_modules`); outside one, the
// .gitignore files of the named directory and below. use_ignore = false turns
// all of it off. --include/--exclude patterns have gitignore syntax too,
// relative to the directory named: `tests`, `tests/` and `tests/**` all
// exclude the tests directory, a pattern without '/' matches a name at any
// depth, '!' re-includes. Files named explicitly are always kept.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace tok::io {

struct WalkOptions {
  bool use_ignore = true;
  std::vector<std::string> include;
  std::vector<std::string> exclude;
};

// Receives each file as the walk finds it, in order (explicit inputs where
// they stand, directories in sorted walk order), so counting can start before
// a large walk ends. walked: found in a directory rather than named.
using FileSink = std::function<void(std::string path, bool walked)>;

// Returns the errors (unreadable directories); a missing or unreadable named
// input goes to the sink and is reported when opened.
std::vector<Error> expand_inputs(const std::vector<std::string>& inputs, const WalkOptions& options,
                                 const FileSink& on_file);

// A file whose first 8 KiB contain a NUL byte is treated as binary (git's rule).
bool looks_binary(std::string_view bytes);

}  // namespace tok::io
