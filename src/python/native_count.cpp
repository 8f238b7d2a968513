// tok.count_files: `tok count --json` as a Python call. The same catalog,
// walk (.gitignore honoured, walked binary files skipped), special-token
// handling (--special text) and pricing as the CLI; the result is the CLI's
// JSON value itself (cost::count_json) as a dict, so code can move between
// the two.
#include <fcntl.h>
#include <pybind11/stl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "core/mapped_file.hpp"
#include "core/thread_pool.hpp"
#include "cost/catalog.hpp"
#include "cost/count_report.hpp"
#include "cost/tokenizer_set.hpp"
#include "io/file_walk.hpp"
#include "io/stream_count.hpp"
#include "python/bindings.hpp"
#include "python/engine.hpp"
#include "python/native_tokenizer.hpp"
#include "python/py_convert.hpp"
#include "python/py_error.hpp"

namespace tok::python {

namespace {

struct FileRow {
  std::string path;
  std::uint64_t bytes = 0;
  std::vector<std::uint64_t> tokens;  // (tokenizers)
  bool skipped = false;
  std::string error;
};

template <class T>
T or_throw(Result<T> r) {
  if (!r.ok()) raise_error(r.error().message);
  return std::move(r).value();
}

// A named pipe or device (/dev/zero, <(cmd)) is counted as it arrives by
// the CLI's own stream counter, so it stops where `tok count` stops (no
// piece boundary within its limit) instead of being read whole first.
// False when the path is not a stream (or cannot be opened: MappedFile
// reports that).
bool count_if_stream(FileRow& row, const std::vector<const bpe::Tokenizer*>& tokenizers) {
  int fd = ::open(row.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) {
    ::close(fd);
    return false;
  }
  Result<io::StreamCount> n =
      io::count_stream(fd, row.path, tokenizers, bpe::SpecialMode::kText, 1);
  ::close(fd);
  if (!n.ok()) {
    row.error = n.error().message;
  } else {
    row.bytes = n->bytes;
    row.tokens = n->tokens;
  }
  return true;
}

// Counts every file with every tokenizer, files spread over core's pool. A
// file's error stays in its row (count_files raises the first in file
// order); an exception on a worker is rethrown here by the pool.
std::vector<FileRow> count_all(const std::vector<std::pair<std::string, bool>>& files,
                               const std::vector<const bpe::Tokenizer*>& tokenizers,
                               unsigned threads) {
  std::vector<FileRow> rows(files.size());
  unsigned k =
      std::max(1u, std::min<unsigned>(thread_count(threads), static_cast<unsigned>(files.size())));
  std::vector<bpe::EncodeScratch> scratch(k);  // one per worker
  Status st = parallel_for_each(k, files.size(), [&](std::size_t i, unsigned w) {
    FileRow& row = rows[i];
    row.path = files[i].first;
    if (!files[i].second && count_if_stream(row, tokenizers)) return;
    Result<MappedFile> f = MappedFile::open(row.path);
    if (!f.ok()) {
      row.error = f.error().message;
      return;
    }
    std::string_view bytes = f.value().bytes();
    row.bytes = bytes.size();
    if (files[i].second && io::looks_binary(bytes)) {
      row.skipped = true;
      return;
    }
    for (const bpe::Tokenizer* t : tokenizers) {
      Result<std::size_t> n = t->count(bytes, bpe::SpecialMode::kText, scratch[w]);
      if (!n.ok()) {
        row.error = row.path + ": " + n.error().message;
        return;
      }
      row.tokens.push_back(n.value());
    }
  });
  TOK_ASSERT(st.ok());  // the items report in their rows, never by Status
  return rows;
}

py::object count_files(const std::vector<std::string>& paths,
                       const std::vector<std::string>& models, const std::string& encoding,
                       unsigned threads, bool use_ignore) {
  cost::TokenizerSet set;
  cost::Catalog catalog;
  cost::CountReport report;
  std::vector<const bpe::Tokenizer*> tokenizers;  // (distinct tokenizers)
  std::vector<std::pair<std::string, bool>> files;
  std::vector<FileRow> rows;
  {
    py::gil_scoped_release release;
    // The columns as `tok count -m MODEL...` (or `-e ENCODING`) builds them.
    auto add = [&](std::string label, const cost::ModelInfo* m, const bpe::Tokenizer* tk) {
      auto it = std::find(tokenizers.begin(), tokenizers.end(), tk);
      if (it == tokenizers.end()) it = tokenizers.insert(tokenizers.end(), tk);
      report.columns.push_back(
          {std::move(label), m, tk, static_cast<std::size_t>(it - tokenizers.begin()), {}});
    };
    if (models.empty()) {
      const bpe::Tokenizer* tk = or_throw(set.get_encoding(encoding));
      add(tk->name(), nullptr, tk);
    } else {
      catalog = or_throw(cost::Catalog::load_default({}));
      for (const auto& name : models) {
        const cost::ModelInfo* m = or_throw(catalog.get(name));
        add(m->id, m, or_throw(set.get(*m)));
      }
    }
    io::WalkOptions walk;
    walk.use_ignore = use_ignore;
    std::vector<Error> errors = io::expand_inputs(
        paths, walk, [&](std::string p, bool walked) { files.emplace_back(std::move(p), walked); });
    if (!errors.empty()) {
      py::gil_scoped_acquire acquire;
      raise_error(errors.front().message);
    }
    rows = count_all(files, tokenizers, threads);
  }
  for (auto& row : rows) {
    if (!row.error.empty()) raise_error(row.error);
    if (row.skipped) {
      report.skipped.push_back(std::move(row.path));
      continue;
    }
    cost::CountRow counted{std::move(row.path), row.bytes, {}, 0};
    for (const auto& col : report.columns)
      counted.tokens.push_back(row.tokens[col.tokenizer_index]);
    report.rows.push_back(std::move(counted));
  }
  report.sum_rows();
  return to_python(cost::count_json(report, models.empty()));
}

}  // namespace

void bind_count_files(py::module_& m) {
  m.def("count_files", &count_files, py::arg("paths"),
        py::arg("models") = std::vector<std::string>{}, py::arg("encoding") = "o200k_base",
        py::arg("threads") = 0, py::arg("use_ignore") = true);
}

}  // namespace tok::python
