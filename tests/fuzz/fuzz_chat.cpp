// The chat and batch JSON readers of `tok count --chat` / `--batch` on
// arbitrary bytes: parse_chat accepts a message list (every message an
// object with a string role) or refuses with an error naming the source;
// what it accepts is counted under every chat family without failing. Each
// line of the input is also read as a batch request (JSONL).
#include <cstdint>
#include <string>

#include "cost/batch.hpp"
#include "cost/chat.hpp"
#include "fuzz_common.hpp"

namespace {

void check_error(const tok::Error& e, const std::string& source) {
  if (e.message.rfind(source, 0) != 0)
    tok::fuzz::fail("chat", "error does not name the source: " + e.message);
  if (e.message.find('\n') != std::string::npos)
    tok::fuzz::fail("chat", "error is not one line: " + e.message);
}

void check_messages(const nlohmann::json& messages) {
  static const tok::bpe::Tokenizer& tk = tok::fuzz::builtin("r50k_base");
  for (const auto& family : tok::cost::chat_families()) {
    auto rules = tok::cost::chat_rules(family);
    if (!rules.ok()) tok::fuzz::fail("chat", "a listed family has no rules: " + family);
    auto c = tok::cost::count_chat(messages, tk, *rules);
    if (!c.ok()) tok::fuzz::fail("chat", "count_chat failed: " + c.error().message);
    if (c->messages != messages.size()) tok::fuzz::fail("chat", "message count differs");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = tok::fuzz::as_view(data, size);
  auto chat = tok::cost::parse_chat(text, "in.json");
  if (chat.ok()) {
    if (!chat->is_array()) tok::fuzz::fail("chat", "parse_chat returned a non-array");
    check_messages(*chat);
  } else {
    check_error(chat.error(), "in.json");
  }
  std::size_t pos = 0, line_no = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string where = "in.jsonl:" + std::to_string(++line_no);
    auto req = tok::cost::parse_batch_request(text.substr(pos, nl - pos), where);
    pos = nl + 1;
    if (req.ok()) {
      check_messages(req->messages);
    } else {
      check_error(req.error(), where);
    }
  }
  return 0;
}
