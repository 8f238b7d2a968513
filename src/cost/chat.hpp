// Chat-message token counts: the tokens of an OpenAI-style message list as a
// model sees it, i.e. the encoded strings plus the fixed overhead its chat
// format adds per message, per name and to prime the reply.
//
// The "openai" family is OpenAI's published rule (cookbook "How to count
// tokens with tiktoken", num_tokens_from_messages): every string value of each
// message (role, content, name, ...) is encoded, plus 3 tokens per message,
// plus 1 per name, plus 3 that prime the reply; gpt-3.5-turbo-0301
// ("openai-0301") uses 4 per message and -1 per name. The open-model families
// follow their chat templates (special tokens around each turn) and are
// approximate: the template's literal text is counted as fixed overhead, not
// re-encoded together with the content. When the vocabulary carries its chat
// template (chat_template_source.hpp), the rules hold it instead and the
// count is exact: the tokens of the rendered prompt, as the model sees it.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bpe/tokenizer.hpp"
#include "chat/template.hpp"
#include "core/result.hpp"

namespace tok::cost {

struct ChatRules {
  std::string family;
  int per_message = 3;
  int per_name = 1;
  int reply_priming = 3;
  // Encode every string field (OpenAI) or only role + content (templates).
  bool all_string_fields = true;
  bool encode_role = true;
  bool exact = true;          // matches the provider's own count
  std::string template_text;  // what the overhead stands for, for docs/help
  // The vocabulary's own chat template: when set, a conversation counts as
  // the tokens of its rendering (special-token texts as special tokens),
  // and the per-message numbers above are unused.
  std::shared_ptr<const chat::Template> chat_template;
  std::string template_from;  // the file it came from, for messages
  std::string bos, eos;       // bos_token / eos_token given to the template
  bool add_bos = false;       // the BOS llama.cpp adds before a GGUF prompt lacking one
};

// The rules for a vocabulary with its own template: `family`'s rules made
// exact by the template of `tokenizer_spec`, when it has one.
Result<ChatRules> chat_rules_with_template(std::string_view family,
                                           std::string_view tokenizer_spec);

// Rules of a family name ("openai", "openai-0301", "llama3", "qwen",
// "deepseek", "mistral", "gemma", "none"); unknown names are an error.
Result<ChatRules> chat_rules(std::string_view family);
std::vector<std::string> chat_families();

// Parses a chat file: a JSON array of messages or {"messages": [...]}. Each
// message must be an object; errors name the file and the position.
Result<nlohmann::json> parse_chat(std::string_view text, const std::string& source);

struct ChatCount {
  std::size_t tokens = 0;
  std::size_t messages = 0;
  std::size_t ignored_parts = 0;  // non-text content parts (images, audio)
};

// Counts messages (an array as parse_chat returns) under the rules.
Result<ChatCount> count_chat(const nlohmann::json& messages, const bpe::Tokenizer& tk,
                             const ChatRules& rules);

}  // namespace tok::cost
