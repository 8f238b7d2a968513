#include "formats/gguf_vocab.hpp"

#include "formats/sentencepiece_spaces.hpp"
#include "formats/vocab_builder.hpp"

namespace tok::formats {
namespace {

// llama_token_type in GGUF files.
enum TokenType : std::int64_t {
  kNormal = 1,
  kUnknown = 2,
  kControl = 3,
  kUserDefined = 4,
  kUnused = 5,
  kByte = 6,
};

Result<std::vector<std::int64_t>> token_types(const GgufFile& f, std::size_t n) {
  std::vector<std::int64_t> types(n, kNormal);
  const Value* v = f.find("tokenizer.ggml.token_type");
  if (!v) return types;
  TOK_ASSIGN(const Value* arr, f.get_array("tokenizer.ggml.token_type"));
  if (!arr->array.empty() && !arr->array[0].is_integer()) {
    return make_error("{}: GGUF: tokenizer.ggml.token_type should be an integer array", f.path());
  }
  if (arr->array.size() != n) {
    return make_error("{}: GGUF: tokenizer.ggml.token_type has {} entries for {} tokens", f.path(),
                      arr->array.size(), n);
  }
  for (std::size_t i = 0; i < n; ++i) types[i] = arr->array[i].i;
  return types;
}

// An optional token-id key: absent (or not a uint32) is none; an id past the
// vocabulary is an error (a BOS that silently went missing changed every
// model's input).
Result<std::optional<bpe::TokenId>> optional_id(const GgufFile& f, const char* key, std::size_t n) {
  auto r = f.get_u32(key);
  if (!r.ok()) return std::optional<bpe::TokenId>();
  if (*r >= n) {
    return make_error("{}: GGUF: {} is {}, past the vocabulary's {} tokens", f.path(), key, *r, n);
  }
  return std::optional<bpe::TokenId>(*r);
}

}  // namespace

Result<bpe::Tokenizer> load_gguf_tokenizer(const GgufFile& f, const std::string& name) {
  TOK_ASSIGN(std::string_view model, f.get_string("tokenizer.ggml.model"));
  if (model != "gpt2" && model != "llama") {
    return make_error(
        "{}: GGUF: tokenizer model '{}' is not supported yet (tok reads gpt2 and llama)", f.path(),
        model);
  }
  bool spm = model == "llama";
  TOK_ASSIGN(const Value* tokens, f.get_array("tokenizer.ggml.tokens", ValueType::kString));
  std::size_t n = tokens->array.size();
  if (n == 0 || n >= (1u << 24)) {
    return make_error("{}: GGUF: tokenizer.ggml.tokens has {} entries", f.path(), n);
  }
  TOK_ASSIGN(auto types, token_types(f, n));
  VocabSpec spec;
  spec.tokens.resize(n);
  spec.byte_level = !spm;
  spec.byte_fallback = spm;
  std::vector<bpe::SpecialToken> specials;
  for (std::size_t id = 0; id < n; ++id) {
    std::string text(tokens->array[id].str);
    auto t = types[id];
    if (t == kControl || t == kUnknown || t == kUserDefined) {
      bpe::SpecialToken s{text, static_cast<bpe::TokenId>(id)};
      s.always = t == kUserDefined;
      if (!text.empty()) specials.push_back(std::move(s));
    } else if (t != kUnused) {
      spec.tokens[id] = std::move(text);
    }
  }
  std::vector<text::PreTokenizer> pre;
  if (spm) {
    TOK_ASSIGN(const Value* scores, f.get_array("tokenizer.ggml.scores", ValueType::kFloat32));
    if (scores->array.size() != n) {
      return make_error("{}: GGUF: tokenizer.ggml.scores has {} entries for {} tokens", f.path(),
                        scores->array.size(), n);
    }
    spec.use_scores = true;
    spec.scores.reserve(n);
    for (const auto& s : scores->array) spec.scores.push_back(static_cast<float>(s.f));
    TOK_ASSIGN(auto unk, optional_id(f, "tokenizer.ggml.unknown_token_id", n));
    if (unk) spec.unk = *unk;
  } else {
    TOK_ASSIGN(const Value* merges, f.get_array("tokenizer.ggml.merges", ValueType::kString));
    spec.merges.reserve(merges->array.size());
    for (std::size_t i = 0; i < merges->array.size(); ++i) {
      std::string_view m = merges->array[i].str;
      std::size_t sp = m.find(' ', 1);
      if (sp == std::string_view::npos) {
        return make_error("{}: GGUF: merge {} ('{}') is not two tokens separated by a space",
                          f.path(), i + 1, m);
      }
      spec.merges.emplace_back(std::string(m.substr(0, sp)), std::string(m.substr(sp + 1)));
    }
    std::string pre_name = "default";
    if (f.find("tokenizer.ggml.pre")) {
      TOK_ASSIGN(std::string_view p, f.get_string("tokenizer.ggml.pre"));
      pre_name = std::string(p);
    }
    auto regexes = llama_cpp_pre_regexes(pre_name, &spec.ignore_merges);
    if (!regexes.ok()) return make_error("{}: GGUF: {}", f.path(), regexes.error().message);
    for (const auto& r : *regexes) {
      auto p = text::PreTokenizer::from_regex(r);
      if (!p.ok())
        return make_error("{}: GGUF: pre-tokenizer '{}': {}", f.path(), pre_name,
                          p.error().message);
      pre.push_back(std::move(p).value());
    }
  }
  TOK_ASSIGN(bpe::MergeTable table, build_merge_table(std::move(spec), f.path()));
  bpe::Tokenizer tk(name, std::move(table), std::move(pre), std::move(specials));
  TOK_ASSIGN(tk.bos, optional_id(f, "tokenizer.ggml.bos_token_id", n));
  TOK_ASSIGN(tk.eos, optional_id(f, "tokenizer.ggml.eos_token_id", n));
  auto flag = [&](const char* key, bool def) {
    auto r = f.get_bool(key);
    return r.ok() ? *r : def;
  };
  tk.add_bos = flag("tokenizer.ggml.add_bos_token", spm) && tk.bos;
  tk.add_eos = flag("tokenizer.ggml.add_eos_token", false) && tk.eos;
  if (spm) {
    // llama.cpp: a space before the text and after every special token, then
    // spaces become "▁"; the prefix added even before a leading space.
    using Prepend = SentencePieceSpaces::Prepend;
    bool prefix = flag("tokenizer.ggml.add_space_prefix", true);
    SentencePieceSpaces spaces{"\u2581", prefix ? Prepend::kAlways : Prepend::kNever, false};
    tk.set_segment_transform(
        [spaces](std::string_view s, std::size_t offset, std::vector<std::size_t>* to_input) {
          return spaces.encode(s, offset, to_input);
        });
    tk.set_decode_transform(
        [spaces, prefix](std::string_view s) { return spaces.decode(s, prefix); });
  }
  return tk;
}

}  // namespace tok::formats
