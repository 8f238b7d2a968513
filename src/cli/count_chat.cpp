// `tok count --chat FILE` and `--batch FILE.jsonl`: chat messages counted
// with each column's chat overhead (cost/chat.hpp).
#include <fmt/format.h>

#include "cli/command.hpp"
#include "cli/count_model.hpp"
#include "cli/input.hpp"
#include "cost/batch.hpp"

namespace tok::cli {

namespace {

// Errors name `where`: the file, or the file and line of a batch request.
Status count_messages(const nlohmann::json& messages, const std::string& where,
                      const std::string& label, std::uint64_t bytes, CountReport& r) {
  Row row{label, bytes, {}};
  std::size_t ignored = 0;
  for (const auto& col : r.columns) {
    auto c = cost::count_chat(messages, *col.tokenizer, col.chat);
    if (!c.ok()) return make_error("{}: {}", where, c.error().message);
    row.tokens.push_back(c->tokens);
    ignored = c->ignored_parts;
  }
  if (ignored) {
    warn(fmt::format("{}: {} non-text content parts (images, audio) are not counted", label,
                     ignored));
  }
  r.rows.push_back(std::move(row));
  return {};
}

}  // namespace

Status count_chat_file(const std::string& path, CountReport& r) {
  TOK_ASSIGN(MappedFile f, MappedFile::open(path.empty() ? "-" : path, kMaxSmallStreamBytes));
  std::string source = path == "-" ? "<stdin>" : path;
  TOK_ASSIGN(nlohmann::json messages, cost::parse_chat(f.bytes(), source));
  return count_messages(messages, source, source, f.size(), r);
}

Status count_batch_file(const std::string& path, CountReport& r) {
  TOK_ASSIGN(MappedFile f, open_input(path));
  std::string source = path == "-" ? "<stdin>" : path;
  std::string_view text = f.bytes();
  std::size_t pos = 0, line_no = 0;
  std::uint64_t max_tokens = 0;
  bool all_max = true;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    std::string where = fmt::format("{}:{}", source, line_no);
    TOK_ASSIGN(cost::BatchRequest req, cost::parse_batch_request(line, where));
    std::string label = req.custom_id.empty() ? where : where + " " + req.custom_id;
    TOK_TRY(count_messages(req.messages, where, label, line.size(), r));
    // Each request's own output: --output-tokens, else its max_tokens.
    r.rows.back().output = r.output_tokens ? r.output_tokens : req.max_tokens.value_or(0);
    if (req.max_tokens) {
      // Saturating: hostile values near 2^64 must not wrap to a small sum.
      max_tokens =
          *req.max_tokens > UINT64_MAX - max_tokens ? UINT64_MAX : max_tokens + *req.max_tokens;
    } else {
      all_max = false;
    }
  }
  // The file's output: the requests' outputs summed (billed per request).
  if (r.output_tokens == 0) {
    r.output_tokens = max_tokens;
    r.output_is_max = all_max && max_tokens > 0;
  } else {
    std::uint64_t per = r.output_tokens;
    std::size_t n = r.rows.size();
    r.output_tokens = n && per > UINT64_MAX / n ? UINT64_MAX : per * n;
  }
  return {};
}

}  // namespace tok::cli
