#include "formats/hf_tokenizer.hpp"

#include <filesystem>
#include <unordered_map>

#include "core/mapped_file.hpp"
#include "formats/byte_level.hpp"
#include "formats/hf_pipeline.hpp"
#include "formats/json_error.hpp"
#include "formats/vocab_builder.hpp"

namespace tok::formats {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

// "a b" or ["a", "b"].
Result<std::pair<std::string, std::string>> parse_merge(const json& m, std::size_t i,
                                                        const std::string& source) {
  if (m.is_string()) {
    const std::string& s = m.get_ref<const std::string&>();
    std::size_t sp = s.find(' ');
    if (sp == std::string::npos || s.find(' ', sp + 1) != std::string::npos) {
      return make_error("{}: merge {} ('{}') is not two tokens separated by one space", source,
                        i + 1, excerpt(s));
    }
    return std::pair{s.substr(0, sp), s.substr(sp + 1)};
  }
  if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
    return std::pair{m[0].get<std::string>(), m[1].get<std::string>()};
  }
  return make_error("{}: merge {} is neither \"a b\" nor [\"a\", \"b\"]", source, i + 1);
}

// BOS/EOS from the post-processor template and tokenizer_config.json.
void read_edges(const json& root, const std::string& path, bpe::Tokenizer& tk,
                const std::unordered_map<std::string, bpe::TokenId>& ids) {
  auto lookup = [&](const json& v) -> std::optional<bpe::TokenId> {
    std::string s = v.is_string() ? v.get<std::string>()
                    : v.is_object() && v.contains("content") && v["content"].is_string()
                        ? v["content"].get<std::string>()
                        : std::string();
    auto it = ids.find(s);
    if (s.empty() || it == ids.end()) return std::nullopt;
    return it->second;
  };
  const json& post = root.value("post_processor", json());
  std::function<void(const json&)> visit = [&](const json& p) {
    if (!p.is_object()) return;
    std::string type = p.value("type", "");
    if (type == "Sequence") {
      for (const auto& x : p.value("processors", json::array())) visit(x);
    } else if (type == "TemplateProcessing") {
      const json& single = p.value("single", json::array());
      if (!single.is_array() || single.empty()) return;
      auto special_id = [&](const json& item) -> std::optional<bpe::TokenId> {
        if (!item.contains("SpecialToken")) return std::nullopt;
        return lookup(item["SpecialToken"].value("id", json()));
      };
      if (auto id = special_id(single.front())) {
        tk.add_bos = true;
        tk.bos = *id;
      }
      if (single.size() > 1) {
        if (auto id = special_id(single.back())) {
          tk.add_eos = true;
          tk.eos = *id;
        }
      }
    }
  };
  visit(post);
  std::string cfg_path = (fs::path(path).parent_path() / "tokenizer_config.json").string();
  std::error_code ec;
  if (!fs::is_regular_file(cfg_path, ec)) return;
  auto f = MappedFile::open(cfg_path, kMaxSmallStreamBytes);
  if (!f.ok()) return;
  auto cfg = parse_json(f->bytes(), cfg_path);
  if (!cfg.ok() || !cfg->is_object()) return;
  if (cfg->contains("bos_token")) {
    if (auto id = lookup((*cfg)["bos_token"])) tk.bos = *id;
  }
  if (cfg->contains("eos_token")) {
    if (auto id = lookup((*cfg)["eos_token"])) tk.eos = *id;
  }
  if (cfg->contains("add_bos_token") && (*cfg)["add_bos_token"].is_boolean()) {
    tk.add_bos = (*cfg)["add_bos_token"].get<bool>() && tk.bos;
  }
  if (cfg->contains("add_eos_token") && (*cfg)["add_eos_token"].is_boolean()) {
    tk.add_eos = (*cfg)["add_eos_token"].get<bool>() && tk.eos;
  }
}

}  // namespace

namespace {

// An added token on the id of a different model.vocab token: encode would
// give both texts the one id, and decode could not tell them apart.
Status check_added_id(const std::vector<bpe::SpecialToken>& specials, const std::string& token,
                      bpe::TokenId id, const std::string& path) {
  for (const auto& s : specials) {
    if (s.id == id && s.text != token) {
      return make_error("{}: added token '{}' has id {}, which model.vocab gives to '{}'", path,
                        excerpt(s.text), id, excerpt(token));
    }
  }
  return {};
}

Result<bpe::Tokenizer> read_hf_tokenizer_json(const json& root, const std::string& path,
                                              const std::string& name) {
  if (!root.is_object() || !root.contains("model") || !root["model"].is_object()) {
    return make_error("{}: not a Hugging Face tokenizer.json (no \"model\" object)", path);
  }
  const json& model = root["model"];
  std::string type = model.value("type", model.contains("merges") ? "BPE" : "");
  if (type != "BPE") {
    return make_error("{}: model type '{}' is not supported yet (tok reads BPE models)", path,
                      type.empty() ? "unknown" : type);
  }
  for (const char* k : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    if (model.contains(k) && model[k].is_string() && !model[k].get<std::string>().empty()) {
      return make_error("{}: BPE option {} is not supported yet", path, k);
    }
  }
  if (!model.contains("vocab") || !model["vocab"].is_object()) {
    return make_error("{}: model.vocab is missing or not an object", path);
  }
  TOK_ASSIGN(HfPipeline pipe, build_hf_pipeline(root.value("normalizer", json()),
                                                root.value("pre_tokenizer", json()),
                                                root.value("decoder", json()), path));

  // Added tokens: matched before the model; not ordinary tokens.
  std::vector<bpe::SpecialToken> specials;
  std::unordered_map<std::string, bpe::TokenId> ids;  // every token string -> id
  std::size_t n = 0;
  for (const auto& a : root.value("added_tokens", json::array())) {
    if (!a.is_object() || !a.contains("id") || !a["id"].is_number_unsigned() ||
        !a.contains("content") || !a["content"].is_string()) {
      return make_error("{}: an added_tokens entry lacks an integer id or a string content", path);
    }
    bpe::SpecialToken s{a["content"].get<std::string>(), a["id"].get<bpe::TokenId>()};
    s.always = !a.value("special", false);
    s.lstrip = a.value("lstrip", false);
    s.rstrip = a.value("rstrip", false);
    if (s.id >= (1u << 24)) return make_error("{}: added token id {} is too large", path, s.id);
    n = std::max<std::size_t>(n, s.id + 1);
    ids[s.text] = s.id;
    specials.push_back(std::move(s));
  }
  const json& vocab = model["vocab"];
  for (auto it = vocab.begin(); it != vocab.end(); ++it) {
    if (!it.value().is_number_unsigned() || it.value().get<std::uint64_t>() >= (1u << 24)) {
      return make_error("{}: model.vocab['{}'] is not a valid id", path, it.key());
    }
    n = std::max<std::size_t>(n, it.value().get<std::size_t>() + 1);
  }
  // Tokens of model.vocab stay in the merge table even when they are also
  // added tokens: HF's BPE model knows them, and merges may produce them.
  // (Unless a byte-level vocabulary writes one outside the byte mapping.)
  VocabSpec spec;
  spec.tokens.resize(n);
  std::vector<bool> added(n, false);
  for (const auto& s : specials) added[s.id] = true;
  for (auto it = vocab.begin(); it != vocab.end(); ++it) {
    auto id = it.value().get<bpe::TokenId>();
    ids.emplace(it.key(), id);
    if (added[id]) TOK_TRY(check_added_id(specials, it.key(), id, path));
    if (added[id] && pipe.byte_level && !byte_level_decode(it.key())) continue;
    spec.tokens[id] = it.key();
  }
  const json& merges = model.value("merges", json::array());
  spec.merges.reserve(merges.size());
  for (std::size_t i = 0; i < merges.size(); ++i) {
    TOK_ASSIGN(auto m, parse_merge(merges[i], i, path));
    spec.merges.push_back(std::move(m));
  }
  spec.byte_level = pipe.byte_level;
  spec.ignore_merges = model.value("ignore_merges", false);
  spec.byte_fallback = model.value("byte_fallback", false);
  if (model.contains("unk_token") && model["unk_token"].is_string()) {
    auto it = ids.find(model["unk_token"].get<std::string>());
    if (it != ids.end()) spec.unk = it->second;
  }
  TOK_ASSIGN(bpe::MergeTable table, build_merge_table(std::move(spec), path));
  bpe::Tokenizer tk(name, std::move(table), std::move(pipe.pre), std::move(specials));
  tk.pipeline = pipe.describe;
  if (pipe.segment) tk.set_segment_transform(std::move(pipe.segment));
  if (pipe.decode) tk.set_decode_transform(std::move(pipe.decode));
  read_edges(root, path, tk, ids);
  return tk;
}

}  // namespace

Result<bpe::Tokenizer> load_hf_tokenizer_json(std::string_view text, const std::string& path,
                                              const std::string& name) {
  TOK_ASSIGN(json root, parse_json(text, path, true));
  return guard_json(path, [&] { return read_hf_tokenizer_json(root, path, name); });
}

Result<bpe::Tokenizer> load_vocab_merges(const std::string& vocab_path,
                                         const std::string& merges_path, const std::string& name) {
  TOK_ASSIGN(MappedFile vf, MappedFile::open(vocab_path, kMaxSmallStreamBytes));
  TOK_ASSIGN(json vocab, parse_json(vf.bytes(), vocab_path, true));
  if (!vocab.is_object())
    return make_error("{}: expected a JSON object of token -> id", vocab_path);
  TOK_ASSIGN(MappedFile mf, MappedFile::open(merges_path, kMaxSmallStreamBytes));
  VocabSpec spec;
  std::size_t n = 0;
  for (auto it = vocab.begin(); it != vocab.end(); ++it) {
    if (!it.value().is_number_unsigned() || it.value().get<std::uint64_t>() >= (1u << 24)) {
      return make_error("{}: '{}' does not map to a valid id", vocab_path, it.key());
    }
    n = std::max<std::size_t>(n, it.value().get<std::size_t>() + 1);
  }
  spec.tokens.resize(n);
  std::vector<bpe::SpecialToken> specials;
  for (auto it = vocab.begin(); it != vocab.end(); ++it) {
    auto id = it.value().get<bpe::TokenId>();
    if (it.key() == "<|endoftext|>") {
      specials.push_back({it.key(), id});
    } else {
      spec.tokens[id] = it.key();
    }
  }
  std::string_view text = mf.bytes();
  std::size_t line_no = 0;
  while (!text.empty()) {
    std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.starts_with("#version")) continue;
    std::size_t sp = line.find(' ');
    if (sp == std::string_view::npos) {
      return make_error("{}:{}: expected two tokens separated by a space", merges_path, line_no);
    }
    spec.merges.emplace_back(std::string(line.substr(0, sp)), std::string(line.substr(sp + 1)));
  }
  TOK_ASSIGN(bpe::MergeTable table, build_merge_table(std::move(spec), merges_path));
  TOK_ASSIGN(auto pre, text::PreTokenizer::named("gpt2"));
  return bpe::Tokenizer(name, std::move(table), {std::move(pre)}, std::move(specials));
}

}  // namespace tok::formats
