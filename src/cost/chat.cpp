#include "cost/chat.hpp"

#include "cost/chat_template_source.hpp"
#include "formats/json_error.hpp"

namespace tok::cost {
using nlohmann::json;

namespace {

struct Family {
  const char* name;
  ChatRules rules;
};

ChatRules rules(std::string family, int per_message, int per_name, int reply_priming,
                bool all_string_fields, bool encode_role, bool exact, std::string text) {
  ChatRules r;
  r.family = std::move(family);
  r.per_message = per_message;
  r.per_name = per_name;
  r.reply_priming = reply_priming;
  r.all_string_fields = all_string_fields;
  r.encode_role = encode_role;
  r.exact = exact;
  r.template_text = std::move(text);
  return r;
}

// per_message, per_name, reply_priming, all_string_fields, encode_role, exact.
const std::vector<Family>& families() {
  static const std::vector<Family> kFamilies = {
      {"openai", rules("openai", 3, 1, 3, true, true, true,
                       "<|start|>{role/name}<|message|>{content}<|end|> ... <|start|>assistant")},
      {"openai-0301",
       rules("openai-0301", 4, -1, 3, true, true, true,
             "<|im_start|>{role/name}\\n{content}<|im_end|>\\n ... <|im_start|>assistant")},
      {"llama3",
       rules("llama3", 4, 0, 5, false, true, false,
             "<|begin_of_text|> + <|start_header_id|>{role}<|end_header_id|>\\n\\n{content}"
             "<|eot_id|> per message + <|start_header_id|>assistant<|end_header_id|>\\n\\n")},
      {"qwen", rules("qwen", 4, 0, 3, false, true, false,
                     "<|im_start|>{role}\\n{content}<|im_end|>\\n per message + "
                     "<|im_start|>assistant\\n")},
      {"deepseek",
       rules("deepseek", 1, 0, 2, false, false, false,
             "<｜begin▁of▁sentence｜> + <｜User｜>/<｜Assistant｜>{content} per message + "
             "<｜Assistant｜>")},
      {"mistral", rules("mistral", 7, 0, 1, false, false, false,
                        "<s> + [INST] {content} [/INST] per user turn, {content}</s> per reply")},
      {"gemma", rules("gemma", 4, 0, 4, false, true, false,
                      "<bos> + <start_of_turn>{role}\\n{content}<end_of_turn>\\n per message + "
                      "<start_of_turn>model\\n")},
      {"none", rules("none", 0, 0, 0, false, false, false, "content only, no chat format")},
  };
  return kFamilies;
}

// Appends the text of a content value: a string, or an array of parts where
// only {"type": "text", "text": ...} parts carry text.
void content_text(const json& v, std::vector<std::string_view>& out, std::size_t& ignored) {
  if (v.is_string()) {
    out.push_back(v.get_ref<const std::string&>());
  } else if (v.is_array()) {
    for (const auto& part : v) {
      if (part.is_string()) {
        out.push_back(part.get_ref<const std::string&>());
      } else if (part.is_object() && part.value("type", "") == "text" && part.contains("text") &&
                 part["text"].is_string()) {
        out.push_back(part["text"].get_ref<const std::string&>());
      } else {
        ++ignored;
      }
    }
  }
}

}  // namespace

Result<ChatRules> chat_rules(std::string_view family) {
  for (const auto& f : families()) {
    if (family == f.name) return f.rules;
  }
  std::string known;
  for (const auto& f : families()) known += std::string(known.empty() ? "" : ", ") + f.name;
  return make_error("unknown chat format '{}'; known: {}", family, known);
}

std::vector<std::string> chat_families() {
  std::vector<std::string> out;
  for (const auto& f : families()) out.push_back(f.name);
  return out;
}

Result<json> parse_chat(std::string_view text, const std::string& source) {
  TOK_ASSIGN(json doc, formats::parse_json(text, source));
  json messages;
  if (doc.is_array()) {
    messages = std::move(doc);
  } else if (doc.is_object() && doc.contains("messages") && doc["messages"].is_array()) {
    messages = std::move(doc["messages"]);
  } else {
    return make_error("{}: expected a JSON array of messages or {{\"messages\": [...]}}", source);
  }
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const json& m = messages[i];
    if (!m.is_object()) {
      return make_error("{}: messages[{}]: expected an object, got {}", source, i, m.type_name());
    }
    auto role = m.find("role");
    if (role == m.end() || !role->is_string()) {
      return make_error("{}: messages[{}]: missing string field 'role'", source, i);
    }
  }
  return messages;
}

Result<ChatRules> chat_rules_with_template(std::string_view family,
                                           std::string_view tokenizer_spec) {
  TOK_ASSIGN(ChatRules rules, chat_rules(family));
  TOK_ASSIGN(std::optional<ChatTemplateSource> src, find_chat_template(tokenizer_spec));
  if (!src) return rules;
  auto t = chat::Template::parse(src->text);
  if (!t.ok()) return make_error("{}: {}", src->where, t.error().message);
  rules.chat_template = std::make_shared<const chat::Template>(std::move(*t));
  rules.template_from = src->where;
  rules.bos = src->bos;
  rules.eos = src->eos;
  rules.add_bos = src->where.ends_with(".gguf");
  rules.exact = true;
  rules.template_text = "the vocabulary's chat template (" + src->where + ")";
  return rules;
}

namespace {

Result<ChatCount> count_rendered(const json& messages, const bpe::Tokenizer& tk,
                                 const ChatRules& rules) {
  json ctx = {{"messages", messages},
              {"add_generation_prompt", true},
              {"bos_token", rules.bos},
              {"eos_token", rules.eos}};
  auto text = rules.chat_template->render(ctx);
  if (!text.ok()) return make_error("{}: {}", rules.template_from, text.error().message);
  ChatCount c;
  TOK_ASSIGN(c.tokens, tk.count(*text, bpe::SpecialMode::kAllow));
  if (rules.add_bos && tk.add_bos && tk.bos && !text->starts_with(tk.token_bytes(*tk.bos)))
    ++c.tokens;
  c.messages = messages.size();
  return c;
}

}  // namespace

Result<ChatCount> count_chat(const json& messages, const bpe::Tokenizer& tk,
                             const ChatRules& rules) {
  if (rules.chat_template) return count_rendered(messages, tk, rules);
  ChatCount c;
  long long total = 0;
  std::vector<std::string_view> texts;
  for (const auto& m : messages) {
    texts.clear();
    total += rules.per_message;
    for (auto it = m.begin(); it != m.end(); ++it) {
      const std::string& key = it.key();
      bool wanted =
          rules.all_string_fields || key == "content" || (key == "role" && rules.encode_role);
      if (!wanted) continue;
      if (key == "content") {
        content_text(it.value(), texts, c.ignored_parts);
      } else if (it.value().is_string()) {
        texts.push_back(it.value().get_ref<const std::string&>());
      }
      if (key == "name" && rules.all_string_fields) total += rules.per_name;
    }
    for (std::string_view t : texts) {
      TOK_ASSIGN(std::size_t n, tk.count(t, bpe::SpecialMode::kText));
      total += static_cast<long long>(n);
    }
    ++c.messages;
  }
  total += rules.reply_priming;
  c.tokens = total < 0 ? 0 : static_cast<std::size_t>(total);
  return c;
}

}  // namespace tok::cost
