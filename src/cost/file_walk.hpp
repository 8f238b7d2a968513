// Expands command inputs (files, directories, "-") into the list of files to
// count. Directories are walked recursively in sorted order, skipping .git
// and whatever .gitignore files (and .git/info/exclude at a repository root)
// exclude, unless use_ignore is off; --include/--exclude globs filter the
// walked files by their path relative to the directory named (a glob without
// '/' matches the file name). Files named explicitly are always kept.
#pragma once

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

struct WalkResult {
  std::vector<std::string> files;  // in order: explicit inputs, then walk order
  std::vector<Error> errors;       // unreadable directories or missing inputs
};

WalkResult expand_inputs(const std::vector<std::string>& inputs, const WalkOptions& options);

// A file whose first 8 KiB contain a NUL byte is treated as binary (git's rule).
bool looks_binary(std::string_view bytes);

}  // namespace tok::cost
