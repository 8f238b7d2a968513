#include "cli/generate_chat.hpp"

#include "chat/template.hpp"
#include "cli/command.hpp"
#include "cli/input.hpp"
#include "cost/chat.hpp"
#include "formats/gguf_reader.hpp"

namespace tok::cli {

namespace {

// The template: --chat-template-file, else the GGUF's tokenizer.chat_template.
Result<std::string> template_text(const ChatOptions& o, const model::Model& m) {
  if (!o.template_file.empty()) {
    TOK_ASSIGN(MappedFile f, MappedFile::open(o.template_file, kMaxSmallStreamBytes));
    return std::string(f.bytes());
  }
  if (!m.file().find("tokenizer.chat_template")) {
    return make_error(
        "{}: the file has no chat template (tokenizer.chat_template); give one with "
        "--chat-template-file",
        m.path());
  }
  auto t = m.file().get_string("tokenizer.chat_template");
  if (!t.ok()) return make_error("{}: {}", m.path(), t.error().message);
  return std::string(*t);
}

Result<nlohmann::json> conversation(const ChatOptions& o, const std::string& prompt,
                                    bool prompt_given) {
  nlohmann::json messages = nlohmann::json::array();
  if (o.messages_given) {
    std::string source = o.messages == "-" ? "<stdin>" : o.messages;
    if (o.messages.empty() || o.messages == "-") note_terminal_stdin();
    TOK_ASSIGN(MappedFile f,
               MappedFile::open(o.messages.empty() ? "-" : o.messages, kMaxSmallStreamBytes));
    TOK_ASSIGN(messages, cost::parse_chat(f.bytes(), source));
  }
  // An empty --system adds no system turn: `--system ''` asks for a chat
  // of the prompt alone.
  if (o.system_given && !o.system.empty()) {
    messages.insert(messages.begin(), nlohmann::json{{"role", "system"}, {"content", o.system}});
  }
  std::string user = prompt;
  if (!o.messages_given && !prompt_given) {
    TOK_ASSIGN(MappedFile in, open_input("-"));
    user = std::string(in.bytes());
  }
  if (prompt_given || !o.messages_given) messages.push_back({{"role", "user"}, {"content", user}});
  return messages;
}

}  // namespace

void ChatOptions::add(CLI::App* app) {
  app->add_option(
         "--chat", messages,
         "Chat: render this conversation (a JSON array of {\"role\", \"content\"} messages; - for "
         "stdin) with the model's chat template; a PROMPT is added as the last user turn")
      ->each([this](const std::string&) { messages_given = true; });
  app->add_option("--system", system,
                  "Chat: a system turn, with PROMPT as the user turn ('' for no system turn)")
      ->each([this](const std::string&) { system_given = true; });
  app->add_option("--chat-template-file", template_file,
                  "Chat: a Jinja chat template to use instead of the model file's");
  app->add_flag("--print-prompt", print_prompt,
                "Print the prompt text (the rendered chat template) and exit without generating");
}

Result<ChatPrompt> chat_prompt(const ChatOptions& o, const model::Model& m,
                               const std::string& prompt, bool prompt_given) {
  if (o.messages_given && o.system_given) {
    throw UsageError{"--system and --chat: put the system turn in the messages file"};
  }
  TOK_ASSIGN(std::string tpl, template_text(o, m));
  const bpe::Tokenizer& tk = m.tokenizer();
  chat::ChatInputs in;
  TOK_ASSIGN(in.messages, conversation(o, prompt, prompt_given));
  if (tk.bos) in.bos_token = std::string(tk.token_bytes(*tk.bos));
  if (tk.eos) in.eos_token = std::string(tk.token_bytes(*tk.eos));
  std::string where = o.template_file.empty() ? m.path() : o.template_file;
  auto text = chat::apply_chat_template(tpl, in);
  if (!text.ok()) return make_error("{}: {}", where, text.error().message);
  ChatPrompt p;
  p.text = std::move(*text);
  // The template writes its special tokens as text (<|im_start|>, the BOS):
  // they are encoded as special tokens, as llama.cpp does. A BOS the model
  // adds is not doubled when the template already wrote one.
  auto enc = tk.encode(p.text, bpe::SpecialMode::kAllow);
  if (!enc.ok()) {
    // Named after where the conversation came from: its text is the input.
    std::string source = o.messages_given ? (o.messages == "-" ? "<stdin>" : o.messages)
                         : prompt_given   ? "PROMPT"
                                          : "<stdin>";
    return make_error("{}: {}", source, enc.error().message);
  }
  if (tk.add_bos && tk.bos && (enc->empty() || enc->front() != *tk.bos)) p.ids.push_back(*tk.bos);
  p.ids.insert(p.ids.end(), enc->begin(), enc->end());
  return p;
}

}  // namespace tok::cli
