#include "io/jsonl_documents.hpp"

namespace tok::io {

std::vector<std::size_t> split_batch(const JsonlBatch& batch, std::size_t slots) {
  std::vector<std::size_t> cuts{0};
  const std::size_t n = batch.lines.size();
  std::uint64_t done = 0;
  std::size_t i = 0;
  for (std::size_t t = 1; t < slots; ++t) {
    const std::uint64_t goal = batch.bytes * t / slots;
    while (i < n && done < goal) done += batch.lines[i++].size() + 1;
    cuts.push_back(i);
  }
  cuts.push_back(n);
  return cuts;
}

std::string jsonl_name(const std::string& path) {
  return path == "-" || path.empty() ? std::string("<stdin>") : path;
}

}  // namespace tok::io
