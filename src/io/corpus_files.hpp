// The text files a trainer reads (`tok train`, Python's tok.train): every
// input opened, directories walked by expand_inputs exactly as `tok count`
// walks them, binary files found by the walk left out and listed. A file
// named explicitly is read whatever it holds: the user asked for it.
#pragma once

#include <string>
#include <vector>

#include "core/mapped_file.hpp"
#include "core/result.hpp"
#include "io/file_walk.hpp"

namespace tok::io {

struct CorpusFiles {
  std::vector<MappedFile> files;            // (inputs kept, in walk order)
  std::vector<std::string> skipped_binary;  // walked files with a NUL in their first 8 KiB
  std::size_t bytes = 0;
};

// "-" is stdin. An unreadable directory, file or a missing path is an error.
Result<CorpusFiles> open_corpus_files(const std::vector<std::string>& inputs,
                                      const WalkOptions& options);

}  // namespace tok::io
