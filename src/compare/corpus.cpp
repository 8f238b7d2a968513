#include "compare/corpus.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

namespace tok::compare {
namespace fs = std::filesystem;

namespace {

bool skipped_name(const std::string& name) {
  return name.empty() || name[0] == '.' || name.rfind("README", 0) == 0 ||
         name.rfind("LICENSE", 0) == 0;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (;;) {
    std::size_t at = s.find(sep, start);
    if (at == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, at - start));
    start = at + 1;
  }
}

std::string_view chomp(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

Result<Corpus> load_directory(const std::string& path) {
  Corpus c{path, {}};
  std::error_code ec;
  std::vector<fs::path> files;
  for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;  // follows symlinks to files
    if (skipped_name(it->path().filename().string())) continue;
    files.push_back(it->path());
  }
  if (ec) return make_error("{}: cannot read directory: {}", path, ec.message());
  std::sort(files.begin(), files.end());
  std::set<std::string> seen;
  for (const fs::path& f : files) {
    std::string stem = f.stem().string();
    if (!seen.insert(stem).second) {
      return make_error("{}: two files have the stem '{}'; sample names must be unique", path,
                        stem);
    }
    TOK_ASSIGN(MappedFile m, MappedFile::open(f.string()));
    c.samples.push_back({stem, f.string(), std::move(m)});
  }
  if (c.samples.empty()) return make_error("{}: no sample files in this directory", path);
  return c;
}

}  // namespace

Result<std::vector<Sample>> parse_parallel_tsv(std::string_view bytes, const std::string& path) {
  std::size_t eol = bytes.find('\n');
  std::string_view header = chomp(bytes.substr(0, eol));
  std::vector<std::string_view> names = split(header, '\t');
  if (names.size() < 2) {
    return make_error(
        "{}:1: not a parallel TSV: the first line must name the samples (language codes) "
        "separated by tabs",
        path);
  }
  std::set<std::string_view> seen;
  for (std::string_view n : names) {
    if (n.empty()) return make_error("{}:1: empty column name in the header", path);
    if (!seen.insert(n).second) return make_error("{}:1: column '{}' appears twice", path, n);
  }
  std::vector<std::string> texts(names.size());
  std::size_t line_no = 1;
  std::size_t pos = eol == std::string_view::npos ? bytes.size() : eol + 1;
  while (pos < bytes.size()) {
    ++line_no;
    std::size_t end = bytes.find('\n', pos);
    if (end == std::string_view::npos) end = bytes.size();
    std::string_view line = chomp(bytes.substr(pos, end - pos));
    pos = end + 1;
    if (line.empty()) continue;
    std::vector<std::string_view> cells = split(line, '\t');
    if (cells.size() != names.size()) {
      return make_error("{}:{}: {} cells, but the header names {} samples", path, line_no,
                        cells.size(), names.size());
    }
    for (std::size_t i = 0; i < cells.size(); ++i) {
      texts[i].append(cells[i]);
      texts[i].push_back('\n');
    }
  }
  std::vector<Sample> out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    out.push_back({std::string(names[i]), path + " column " + std::to_string(i + 1),
                   MappedFile::from_string(std::move(texts[i]))});
  }
  std::sort(out.begin(), out.end(),
            [](const Sample& a, const Sample& b) { return a.name < b.name; });
  return out;
}

Result<Corpus> load_corpus(const std::string& path) {
  std::error_code ec;
  auto st = fs::status(path, ec);
  if (ec || !fs::exists(st)) return make_error("{}: no such file or directory", path);
  if (fs::is_directory(st)) return load_directory(path);
  TOK_ASSIGN(MappedFile m, MappedFile::open(path));
  TOK_ASSIGN(auto samples, parse_parallel_tsv(m.bytes(), path));
  return Corpus{path, std::move(samples)};
}

}  // namespace tok::compare
