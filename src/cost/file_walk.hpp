// Expands command inputs (files, directories, "-") into the list of files to
// count. Directories are walked recursively in sorted order, skipping .git
// and whatever .gitignore files (and .git/info/exclude at a repository root)
// exclude, unless use_ignore is off; --include/--exclude globs filter the
// walked files by their path relative to the directory named (a glob without
// '/' matches the file name). Files named explicitly are always kept.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace tok::cost {

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

}  // namespace tok::cost
