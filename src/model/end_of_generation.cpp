#include "model/end_of_generation.hpp"

#include <algorithm>
#include <string_view>

#include "formats/gguf_reader.hpp"

namespace tok::model {

std::vector<bpe::TokenId> end_of_generation_ids(const bpe::Tokenizer& tk,
                                                const formats::GgufFile* file) {
  // llama-vocab.cpp's list of end-of-turn texts.
  static constexpr std::string_view kTexts[] = {"<|eot_id|>",
                                                "<|im_end|>",
                                                "<|end|>",
                                                "<|return|>",
                                                "<|call|>",
                                                "<end_of_turn>",
                                                "<|endoftext|>",
                                                "<|eom_id|>",
                                                "<EOT>",
                                                "_<EOT>",
                                                "<|end_of_text|>",
                                                "<end_of_utterance>",
                                                "<｜end▁of▁sentence｜>"};
  std::vector<bpe::TokenId> ids;
  if (tk.eos) ids.push_back(*tk.eos);
  for (const auto& s : tk.specials()) {
    if (std::find(std::begin(kTexts), std::end(kTexts), s.text) != std::end(kTexts))
      ids.push_back(s.id);
  }
  if (file) {
    for (std::string_view key : {"tokenizer.ggml.eot_token_id", "tokenizer.ggml.eom_token_id"}) {
      if (!file->find(key)) continue;
      auto id = file->get_u32(key);
      if (id.ok() && tk.has_token(*id)) ids.push_back(*id);
    }
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

}  // namespace tok::model
