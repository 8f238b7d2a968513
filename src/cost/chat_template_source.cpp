#include "cost/chat_template_source.hpp"

#include <filesystem>

#include "core/mapped_file.hpp"
#include "formats/builtin_encodings.hpp"
#include "formats/gguf_reader.hpp"
#include "formats/json_error.hpp"
#include "formats/vocab_catalog.hpp"

namespace tok::cost {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// bos_token / eos_token: a string, or an AddedToken object with "content".
std::string token_text(const json& cfg, const char* key) {
  auto it = cfg.find(key);
  if (it == cfg.end()) return "";
  if (it->is_string()) return it->get<std::string>();
  if (it->is_object() && it->contains("content") && (*it)["content"].is_string()) {
    return (*it)["content"].get<std::string>();
  }
  return "";
}

Result<std::optional<ChatTemplateSource>> from_config(const std::string& dir) {
  std::string path = (fs::path(dir) / "tokenizer_config.json").string();
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return std::optional<ChatTemplateSource>();
  TOK_ASSIGN(MappedFile f, MappedFile::open(path, kMaxSmallStreamBytes));
  TOK_ASSIGN(json cfg, formats::parse_json(f.bytes(), path));
  if (!cfg.is_object() || !cfg.contains("chat_template"))
    return std::optional<ChatTemplateSource>();
  const json& t = cfg["chat_template"];
  ChatTemplateSource src{"", path, token_text(cfg, "bos_token"), token_text(cfg, "eos_token")};
  if (t.is_string()) {
    src.text = t.get<std::string>();
  } else if (t.is_array()) {
    // Several named templates ([{"name", "template"}]): "default" is the chat one.
    for (const auto& e : t) {
      if (e.is_object() && e.value("name", "") == "default" && e.contains("template") &&
          e["template"].is_string()) {
        src.text = e["template"].get<std::string>();
      }
    }
  }
  if (src.text.empty()) return std::optional<ChatTemplateSource>();
  return std::optional<ChatTemplateSource>(std::move(src));
}

Result<std::optional<ChatTemplateSource>> from_gguf(const std::string& path) {
  TOK_ASSIGN(formats::GgufFile g, formats::GgufFile::open(path));
  if (!g.find("tokenizer.chat_template")) return std::optional<ChatTemplateSource>();
  TOK_ASSIGN(std::string_view text, g.get_string("tokenizer.chat_template"));
  ChatTemplateSource src{std::string(text), path, "", ""};
  for (auto [key, out] : {std::pair{"tokenizer.ggml.bos_token_id", &src.bos},
                          {"tokenizer.ggml.eos_token_id", &src.eos}}) {
    if (!g.find(key)) continue;
    auto id = g.get_u32(key);
    auto tokens = g.get_array("tokenizer.ggml.tokens");
    if (id.ok() && tokens.ok()) {
      const auto& arr = (*tokens)->array;
      if (*id < arr.size()) *out = std::string(arr[*id].str);
    }
  }
  return std::optional<ChatTemplateSource>(std::move(src));
}

}  // namespace

Result<std::optional<ChatTemplateSource>> find_chat_template(std::string_view spec) {
  std::string s(spec);
  if (formats::find_builtin(s)) return std::optional<ChatTemplateSource>();
  std::error_code ec;
  if (fs::is_regular_file(s, ec)) {
    if (s.ends_with(".gguf")) return from_gguf(s);
    return from_config(fs::path(s).parent_path().string());
  }
  if (fs::is_directory(s, ec)) return from_config(s);
  if (s.starts_with("hf:")) {
    TOK_ASSIGN(std::string dir, formats::resolve_hf_hub(s.substr(3)));
    return from_config(dir);
  }
  if (const formats::NamedVocab* v = formats::find_named_vocab(s)) {
    if (auto path = formats::named_vocab_path(*v))
      return from_config(fs::path(*path).parent_path().string());
  }
  return std::optional<ChatTemplateSource>();
}

}  // namespace tok::cost
