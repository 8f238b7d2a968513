#include "io/corpus_files.hpp"

#include <utility>

namespace tok::io {

Result<CorpusFiles> open_corpus_files(const std::vector<std::string>& inputs,
                                      const WalkOptions& options) {
  std::vector<std::pair<std::string, bool>> found;  // (path, found by the walk)
  std::vector<Error> errors = expand_inputs(inputs, options, [&](std::string p, bool walked) {
    found.emplace_back(std::move(p), walked);
  });
  if (!errors.empty()) return errors.front();
  CorpusFiles corpus;
  for (const auto& [path, walked] : found) {
    TOK_ASSIGN(MappedFile f, MappedFile::open(path));
    if (walked && looks_binary(f.bytes())) {
      corpus.skipped_binary.push_back(path);
      continue;
    }
    corpus.bytes += f.size();
    corpus.files.push_back(std::move(f));
  }
  return corpus;
}

}  // namespace tok::io
