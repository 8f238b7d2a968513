// tok.count_files: `tok count --json` as a Python call. The same catalog,
// walk (.gitignore honoured, walked binary files skipped), special-token
// handling (--special text) and pricing as the CLI; the result has the keys
// of the CLI's JSON ({"models": [...]} with models, {"encoding", "files",
// "total"} without), so code can move between the two.
#include <fcntl.h>
#include <pybind11/stl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/mapped_file.hpp"
#include "core/thread_pool.hpp"
#include "cost/catalog.hpp"
#include "io/file_walk.hpp"
#include "cost/pricing.hpp"
#include "io/stream_count.hpp"
#include "cost/tokenizer_set.hpp"
#include "python/bindings.hpp"
#include "python/engine.hpp"
#include "python/native_tokenizer.hpp"
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

py::dict count_files(const std::vector<std::string>& paths, const std::vector<std::string>& models,
                     const std::string& encoding, unsigned threads, bool use_ignore) {
  cost::TokenizerSet set;
  cost::Catalog catalog;
  std::vector<const cost::ModelInfo*> infos;
  std::vector<const bpe::Tokenizer*> tokenizers;
  std::vector<std::pair<std::string, bool>> files;
  std::vector<FileRow> rows;
  {
    py::gil_scoped_release release;
    if (models.empty()) {
      tokenizers.push_back(or_throw(set.get_encoding(encoding)));
    } else {
      catalog = or_throw(cost::Catalog::load_default({}));
      for (const auto& name : models) {
        infos.push_back(or_throw(catalog.get(name)));
        tokenizers.push_back(or_throw(set.get(*infos.back())));
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
  py::list skipped;
  std::uint64_t total_bytes = 0;
  std::vector<std::uint64_t> totals(tokenizers.size());
  std::vector<const FileRow*> counted;
  for (const auto& row : rows) {
    if (!row.error.empty()) raise_error(row.error);
    if (row.skipped) {
      skipped.append(row.path);
      continue;
    }
    counted.push_back(&row);
    total_bytes += row.bytes;
    for (std::size_t c = 0; c < totals.size(); ++c) totals[c] += row.tokens[c];
  }
  py::dict out;
  if (models.empty()) {
    out["encoding"] = tokenizers[0]->name();
    py::list list;
    for (const FileRow* row : counted) {
      list.append(py::dict(py::arg("path") = row->path, py::arg("bytes") = row->bytes,
                           py::arg("tokens") = row->tokens[0]));
    }
    out["files"] = list;
    out["total"] = py::dict(py::arg("bytes") = total_bytes, py::arg("tokens") = totals[0]);
  } else {
    py::list list;
    for (std::size_t c = 0; c < infos.size(); ++c) {
      const cost::ModelInfo& m = *infos[c];
      // The total as `tok count` bills it: each file one request, summed.
      std::vector<cost::Request> requests;
      for (const FileRow* row : counted) requests.push_back({row->tokens[c], 0, 0});
      cost::CostLine cl = cost::price_requests(m, requests);
      py::dict e;
      e["model"] = m.id;
      e["provider"] = m.provider;
      e["encoding"] = tokenizers[c]->name();
      e["estimate"] = m.estimate;
      e["tokenizer_kind"] = std::string(cost::tokenizer_kind(m));
      e["context_window"] = m.context_window;
      e["price"] = py::dict(py::arg("input_per_mtok") = m.price.input,
                            py::arg("cached_input_per_mtok") = m.price.cached_input,
                            py::arg("output_per_mtok") = m.price.output,
                            py::arg("date") = m.price.date, py::arg("source") = m.price.source);
      py::list fl;
      for (const FileRow* row : counted) {
        cost::CostLine r = cost::price_tokens(m, row->tokens[c], 0, 0);
        fl.append(py::dict(py::arg("path") = row->path, py::arg("bytes") = row->bytes,
                           py::arg("tokens") = row->tokens[c], py::arg("input_cost") = r.input_usd,
                           py::arg("fits") = r.fits));
      }
      e["files"] = fl;
      e["total"] =
          py::dict(py::arg("bytes") = total_bytes, py::arg("tokens") = totals[c],
                   py::arg("cached_tokens") = cl.cached_tokens, py::arg("output_tokens") = 0,
                   py::arg("input_cost") = cl.input_usd, py::arg("output_cost") = cl.output_usd,
                   py::arg("total_cost") = cl.total_usd, py::arg("window_share") = cl.window_share,
                   py::arg("fits") = cl.fits);
      list.append(e);
    }
    out["models"] = list;
  }
  if (!skipped.empty()) out["skipped"] = skipped;
  return out;
}

}  // namespace

void bind_count_files(py::module_& m) {
  m.def("count_files", &count_files, py::arg("paths"),
        py::arg("models") = std::vector<std::string>{}, py::arg("encoding") = "o200k_base",
        py::arg("threads") = 0, py::arg("use_ignore") = true);
}

}  // namespace tok::python
