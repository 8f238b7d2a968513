// The training corpus of `tok train`: the given files, the files under the
// given directories (recursively, in sorted order), or stdin. Binary files
// (a NUL byte in the first 8 KB) are skipped and listed.
#pragma once

#include <string>
#include <vector>

#include "core/mapped_file.hpp"
#include "core/result.hpp"

namespace tok::cli {

struct TrainCorpus {
  std::vector<MappedFile> files;
  std::vector<std::string> skipped_binary;
  std::size_t bytes = 0;
};

// Opens every input; an unreadable file or a missing path is an error.
Result<TrainCorpus> open_train_corpus(const std::vector<std::string>& paths);

}  // namespace tok::cli
