// The chat-template renderer on arbitrary bytes as a template, rendered for
// a fixed conversation with tight bounds: it parses or refuses, renders or
// refuses, with a one-line error that starts "chat template", and never
// crashes, hangs or exceeds its output bound.
#include <cstdint>
#include <string>

#include "chat/template.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = tok::fuzz::as_view(data, size);
  auto check = [](const tok::Error& e) {
    if (e.message.rfind("chat template", 0) != 0) tok::fuzz::fail("jinja", "error does not name the template: " + e.message);
    if (e.message.find('\n') != std::string::npos) tok::fuzz::fail("jinja", "error is not one line: " + e.message);
  };
  auto t = tok::chat::Template::parse(text);
  if (!t.ok()) {
    check(t.error());
    return 0;
  }
  static const nlohmann::json ctx = {
      {"messages", {{{"role", "system"}, {"content", "Be brief.\n"}},
                    {{"role", "user"}, {"content", "Ça va ? 🙂"}},
                    {{"role", "assistant"}, {"content", nullptr}, {"tool_calls", {{{"function", {{"name", "f"}}}}}}}}},
      {"add_generation_prompt", true},
      {"bos_token", "<s>"},
      {"eos_token", "</s>"}};
  tok::chat::Limits limits;
  limits.max_output = 1 << 20;
  limits.max_steps = 200000;
  limits.max_range = 10000;
  auto r = t->render(ctx, limits);
  if (!r.ok()) {
    check(r.error());
  } else if (r->size() > limits.max_output) {
    tok::fuzz::fail("jinja", "output beyond the limit");
  }
  return 0;
}
