// Chat templates: the Jinja subset Hugging Face chat templates use, rendered
// byte for byte as @huggingface/jinja (transformers.js) renders them, with
// trim_blocks and lstrip_blocks on as transformers sets them.
//
//   auto t = chat::Template::parse(text);          // syntax errors here
//   auto s = t->render({{"messages", msgs}, ...});  // runtime errors here
//
// Errors are one line: "chat template: what (line N)". Rendering has a
// budget (interpreter.hpp) that bounds its time, memory and stack together,
// so no template can hang tok, exhaust its memory or crash it.
#pragma once

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <string_view>

#include "chat/interpreter.hpp"
#include "core/result.hpp"

namespace tok::chat {

struct Program;

class Template {
 public:
  static Result<Template> parse(std::string_view text);
  Template(Template&&) noexcept;
  Template& operator=(Template&&) noexcept;
  ~Template();

  // Renders with the members of `context` (an object) as variables, beside
  // the globals (true/false/none, namespace, range, raise_exception,
  // strftime_now).
  Result<std::string> render(const nlohmann::json& context, const Limits& limits = {}) const;

 private:
  Template();
  std::unique_ptr<Program> program_;
};

// What a chat template is given: the conversation and the vocabulary's
// special tokens (empty: none).
struct ChatInputs {
  nlohmann::json messages;  // [{"role", "content", ...}, ...]
  std::string bos_token, eos_token;
  bool add_generation_prompt = true;
};

// Renders a chat template for a conversation, as transformers'
// apply_chat_template(tokenize=False) does.
Result<std::string> apply_chat_template(std::string_view template_text, const ChatInputs& in);

}  // namespace tok::chat
