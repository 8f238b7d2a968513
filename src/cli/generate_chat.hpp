// The chat options of `tok generate`: --chat MESSAGES.json, --system,
// --chat-template-file and --print-prompt. The conversation is rendered with
// the model's chat template (tokenizer.chat_template in the GGUF) into the
// prompt text, whose special-token strings are encoded as special tokens.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "core/result.hpp"
#include "model/model.hpp"

namespace tok::cli {

struct ChatOptions {
  std::string messages;  // --chat FILE ("-": stdin)
  bool messages_given = false;
  std::string system;  // --system TEXT
  bool system_given = false;
  std::string template_file;  // --chat-template-file FILE
  bool print_prompt = false;

  void add(CLI::App* app);
  // Is the prompt a conversation to render with the template?
  bool active() const { return messages_given || system_given || !template_file.empty(); }
};

struct ChatPrompt {
  std::string text;               // the rendered template
  std::vector<bpe::TokenId> ids;  // its tokens, BOS first when the model adds one
};

// Renders the conversation (the messages file, and/or --system with the
// prompt as the user turn) with add_generation_prompt=true and the
// vocabulary's BOS/EOS texts, then encodes it. Errors name the file.
Result<ChatPrompt> chat_prompt(const ChatOptions& o, const model::Model& m,
                               const std::string& prompt, bool prompt_given);

}  // namespace tok::cli
