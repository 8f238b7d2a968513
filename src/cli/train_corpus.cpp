#include "cli/train_corpus.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>

namespace tok::cli {
namespace fs = std::filesystem;
namespace {

constexpr std::size_t kBinaryProbeBytes = 8192;

bool looks_binary(std::string_view bytes) {
  return std::memchr(bytes.data(), 0, std::min(bytes.size(), kBinaryProbeBytes)) != nullptr;
}

// Regular files under dir, sorted so the order never depends on the file system.
Result<std::vector<std::string>> list_dir(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec), end;
  if (ec) return make_error("{}: cannot read directory: {}", dir, ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec) return make_error("{}: cannot read directory: {}", dir, ec.message());
    std::error_code e2;
    if (it->is_regular_file(e2)) out.push_back(it->path().string());
  }
  if (ec) return make_error("{}: cannot read directory: {}", dir, ec.message());
  std::sort(out.begin(), out.end());
  return out;
}

Status add_file(const std::string& path, TrainCorpus& corpus) {
  TOK_ASSIGN(MappedFile f, MappedFile::open(path));
  if (looks_binary(f.bytes())) {
    corpus.skipped_binary.push_back(path);
    return {};
  }
  corpus.bytes += f.size();
  corpus.files.push_back(std::move(f));
  return {};
}

}  // namespace

Result<TrainCorpus> open_train_corpus(const std::vector<std::string>& paths) {
  TrainCorpus corpus;
  if (paths.empty()) {
    TOK_TRY(add_file("-", corpus));
    return corpus;
  }
  for (const auto& p : paths) {
    std::error_code ec;
    if (p != "-" && fs::is_directory(p, ec)) {
      TOK_ASSIGN(auto files, list_dir(p));
      for (const auto& f : files) TOK_TRY(add_file(f, corpus));
    } else {
      TOK_TRY(add_file(p, corpus));
    }
  }
  return corpus;
}

}  // namespace tok::cli
