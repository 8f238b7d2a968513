#include "cli/encoding_options.hpp"

#include "formats/registry.hpp"

namespace tok::cli {

namespace {

constexpr const char* kEncodingHelp =
    "Vocabulary: a built-in name (o200k_base, cl100k_base, p50k_base, r50k_base, "
    "gpt2), a named Hugging Face vocabulary (qwen3, deepseek-v3, mistral, llama3, "
    "gemma3, gpt-oss, ...), hf:ORG/NAME from the Hugging Face cache, or a path to "
    "a .tiktoken, .gguf, tokenizer.json or vocab.json file or a model folder";

void add_pattern(CLI::App* app, std::optional<std::string>& pattern) {
  app->add_option("--pattern", pattern,
                  "Split pattern (gpt2, cl100k, o200k or a regex) overriding the vocabulary's");
}

}  // namespace

void EncodingOptions::add_encoding(CLI::App* app) {
  app->add_option("-e,--encoding", encoding, kEncodingHelp)->capture_default_str();
  add_pattern(app, pattern);
}

void EncodingOptions::add_encoding_list(CLI::App* app, std::vector<std::string>& encodings) {
  app->add_option("-e,--encoding", encodings,
                  std::string(kEncodingHelp) +
                      " (repeatable: a column per vocabulary; default: " + encoding + ")")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  add_pattern(app, pattern);
}

void EncodingOptions::add_special(CLI::App* app, const std::string& default_mode) {
  special = default_mode;
  app->add_option("--special", special,
                  "Special-token strings in the text: error (refuse), allow (encode as special "
                  "ids) or text (encode as ordinary text)")
      ->check(CLI::IsMember({"error", "allow", "text"}))
      ->capture_default_str();
  app->add_flag("--allow-special", allow_special, "Same as --special allow");
}

void EncodingOptions::add_edges(CLI::App* app) {
  app->add_flag("--add-special", add_edge_tokens,
                "Add the BOS/EOS tokens the vocabulary's metadata asks for (tokenizer_config.json "
                "add_bos_token/add_eos_token, the HF post-processor template, or GGUF "
                "tokenizer.ggml.add_bos_token/add_eos_token)");
}

bpe::SpecialMode EncodingOptions::special_mode() const {
  if (allow_special || special == "allow") return bpe::SpecialMode::kAllow;
  if (special == "text") return bpe::SpecialMode::kText;
  return bpe::SpecialMode::kError;
}

Result<bpe::Tokenizer> EncodingOptions::load() const {
  formats::LoadOptions lo;
  lo.pattern = pattern;
  return formats::load_tokenizer(encoding, lo);
}

}  // namespace tok::cli
