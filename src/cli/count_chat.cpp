// `tok count --chat FILE` and `--batch FILE.jsonl`: chat messages counted
// with each column's chat overhead (cost/chat.hpp).
#include <fmt/format.h>

#include "cli/command.hpp"
#include "cli/count_model.hpp"
#include "cli/input.hpp"
#include "formats/json_error.hpp"

namespace tok::cli {

namespace {

Status count_messages(const nlohmann::json& messages, const std::string& label, std::uint64_t bytes,
                      CountReport& r) {
  Row row{label, bytes, {}};
  std::size_t ignored = 0;
  for (const auto& col : r.columns) {
    TOK_ASSIGN(cost::ChatCount c, cost::count_chat(messages, *col.tokenizer, col.chat));
    row.tokens.push_back(c.tokens);
    ignored = c.ignored_parts;
  }
  if (ignored) {
    warn(fmt::format("{}: {} non-text content parts (images, audio) are not counted", label, ignored));
  }
  r.rows.push_back(std::move(row));
  return {};
}

}  // namespace

Status count_chat_file(const std::string& path, CountReport& r) {
  TOK_ASSIGN(MappedFile f, open_input(path));
  std::string source = path == "-" ? "<stdin>" : path;
  TOK_ASSIGN(nlohmann::json messages, cost::parse_chat(f.bytes(), source));
  return count_messages(messages, source, f.size(), r);
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
    TOK_ASSIGN(nlohmann::json req, formats::parse_json(line, where));
    if (!req.is_object() || !req.contains("body") || !req["body"].is_object()) {
      return make_error("{}: expected a batch request {{\"custom_id\", \"body\": {{...}}}}", where);
    }
    const auto& body = req["body"];
    if (!body.contains("messages")) return make_error("{}: body has no 'messages'", where);
    TOK_ASSIGN(nlohmann::json messages, cost::parse_chat(body["messages"].dump(), where + ": body"));
    std::string label = where;
    if (req.contains("custom_id") && req["custom_id"].is_string()) {
      label += " " + req["custom_id"].get<std::string>();
    }
    TOK_TRY(count_messages(messages, label, line.size(), r));
    if (body.contains("max_tokens") && body["max_tokens"].is_number_unsigned()) {
      max_tokens += body["max_tokens"].get<std::uint64_t>();
    } else if (body.contains("max_completion_tokens") && body["max_completion_tokens"].is_number_unsigned()) {
      max_tokens += body["max_completion_tokens"].get<std::uint64_t>();
    } else {
      all_max = false;
    }
  }
  // Without --output-tokens, the requests' own max_tokens bound the output.
  if (r.output_tokens == 0 && all_max && max_tokens > 0) {
    r.output_tokens = max_tokens;
    r.output_is_max = true;
  }
  return {};
}

}  // namespace tok::cli
