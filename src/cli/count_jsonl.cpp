// tok count --jsonl FIELD: one row per JSONL input, counting the text of
// its documents (the field's string, JSON escapes decoded); its bytes are
// those of the documents' text.
#include <fmt/format.h>

#include <algorithm>

#include "cli/command.hpp"
#include "cli/count_model.hpp"
#include "cli/input.hpp"
#include "io/jsonl_count.hpp"

namespace tok::cli {

Status count_jsonl_files(const std::string& field, bool skip_bad,
                         const std::vector<std::string>& inputs, bpe::SpecialMode mode,
                         unsigned threads, CountReport& r) {
  TOK_ASSIGN(io::JsonlField f, io::parse_jsonl_field(field));
  io::JsonlOptions o{f, skip_bad, threads};
  // Columns sharing a tokenizer are counted once.
  std::vector<const bpe::Tokenizer*> tks;
  std::vector<std::size_t> col_tk;
  for (const auto& c : r.columns) {
    auto it = std::find(tks.begin(), tks.end(), c.tokenizer);
    col_tk.push_back(static_cast<std::size_t>(it - tks.begin()));
    if (it == tks.end()) tks.push_back(c.tokenizer);
  }
  std::vector<std::string> paths = inputs;
  if (paths.empty()) paths.push_back("-");
  for (const auto& path : paths) {
    io::JsonlStats stats;
    if (path == "-") note_terminal_stdin();
    TOK_ASSIGN(std::vector<std::uint64_t> n, io::count_jsonl_tokens(path, o, tks, mode, stats));
    Row row;
    row.path = io::jsonl_name(path);
    row.bytes = stats.text_bytes;
    for (std::size_t c = 0; c < r.columns.size(); ++c) row.tokens.push_back(n[col_tk[c]]);
    r.rows.push_back(std::move(row));
    if (stats.bad) {
      warn(fmt::format("skipped {} bad line{} (first: {})", stats.bad, stats.bad == 1 ? "" : "s",
                       stats.first_bad));
    }
  }
  return {};
}

}  // namespace tok::cli
