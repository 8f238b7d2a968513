// llama.cpp's pre-tokenizer regexes per tokenizer.ggml.pre name, transcribed
// from llama.cpp src/llama-vocab.cpp (llm_tokenizer_bpe; MIT licence). Each
// name maps to a list of regexes applied in sequence, every match and every
// gap becoming a piece (HF Split "Isolated"). std::regex's "$" (end of input)
// is written "\z" for PCRE2; compatibility characters that Unicode
// normalization would change (U+1F7D, U+2126, ...) are written as \x{...}.
#include <fmt/format.h>
#include <array>

#include "formats/gguf_vocab.hpp"

namespace tok::formats {
namespace {

constexpr const char* kGpt2 =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
constexpr const char* kLlama3 =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr const char* kQwen2 =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr const char* kGpt2NoTail =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))";
constexpr const char* kDeepseekLlmLetters =
    R"(\s?[A-Za-zµÀ-ÖØ-öø-ƺƼ-ƿǄ-ʓʕ-ʯͰ-ͳͶͷͻ-ͽͿΆΈ-ΊΌΎ-ΡΣ-ϵϷ-ҁҊ-ԯԱ-ՖႠ-ჅᎠ-Ᏽᏸ-ᏽᲐ-ᲺᲽ-Ჿᴀ-ᴫᵫ-ᵷᵹ-ᶚḀ-ἕἘ-Ἕἠ-ὅὈ-Ὅὐ-ὗὙὛὝὟ-\x{1F7D}ᾀ-ᾴᾶ-ᾼ\x{1FBE}ῂ-ῄῆ-ῌῐ-\x{1FD3}ῖ-\x{1FDB}ῠ-Ῥῲ-ῴῶ-ῼℂℇℊ-ℓℕℙ-ℝℤ\x{2126}ℨ\x{212A}-ℭℯ-ℴℹℼ-ℿⅅ-ⅉⅎↃↄⰀ-ⱻⱾ-ⳤⳫ-ⳮⳲⳳꙀ-ꙭꚀ-ꚛꜢ-ꝯꝱ-ꞇꞋ-ꞎꭰ-ꮿﬀ-ﬆﬓ-ﬗＡ-Ｚａ-ｚ𐐀-𐑏𐒰-𐓓𐓘-𐓻𐲀-𐲲𐳀-𐳲𑢠-𑣟𞤀-𞥃]+)";

struct PreDef {
  std::vector<const char*> names;
  std::vector<const char*> regexes;
  bool ignore_merges = false;
};

const std::vector<PreDef>& pre_defs() {
  static const std::vector<PreDef> defs = {
      {{"llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2"},
       {kLlama3},
       true},
      {{"dbrx", "smaug-bpe"}, {kLlama3}},
      {{"deepseek-llm"},
       {R"([\r\n])", kDeepseekLlmLetters, R"(\s?[!-/:-~！-／：-～‘-‟　-。]+)", R"(\s+\z)",
        R"([一-龥ࠀ-一가-퟿]+)", R"(\p{N}+)"}},
      {{"deepseek-v3"},
       {R"(\p{N}{1,3})", R"([一-龥぀-ゟ゠-ヿ]+)",
        R"([!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)"}},
      {{"deepseek-coder"},
       {R"([\r\n])", R"(\s?\p{L}+)", R"(\s?\p{P}+)", R"([一-龥ࠀ-一가-퟿]+)", R"(\p{N})"}},
      {{"falcon"}, {R"([\p{P}\$\+<=>\^~\|`]+)", kGpt2NoTail, R"([0-9][0-9][0-9])"}},
      {{"starcoder", "refact", "command-r", "smollm", "codeshell", "exaone", "minerva-7b"},
       {R"(\p{N})", kGpt2NoTail}},
      {{"gpt-2", "phi-2", "jina-es", "jina-de", "gigachat", "jina-v1-en", "jina-v2-es",
        "jina-v2-de", "jina-v2-code", "roberta-bpe", "mpt", "olmo", "jais"},
       {kGpt2}},
      {{"stablelm2", "qwen2"}, {kQwen2}},
      {{"chatglm-bpe"}, {kLlama3}},
      {{"poro-chat", "bloom", "gpt3-finnish"}, {R"( ?[^(\s|.,!?…。，、।۔،)]+)"}},
      {{"viking"}, {R"( ?[^(\s|.,!?…。，、।۔،)]+)", R"(\p{N})"}},
      {{"default"}, {R"([\p{P}\$\+<=>\^~\|]+)", kGpt2NoTail, R"(\p{N}+)", R"([0-9][0-9][0-9])"}},
  };
  return defs;
}

}  // namespace

Result<std::vector<std::string>> llama_cpp_pre_regexes(std::string_view pre, bool* ignore_merges) {
  std::string known;
  for (const auto& d : pre_defs()) {
    for (const char* n : d.names) {
      if (pre == n) {
        if (ignore_merges) *ignore_merges = d.ignore_merges;
        return std::vector<std::string>(d.regexes.begin(), d.regexes.end());
      }
      known += known.empty() ? n : fmt::format(", {}", n);
    }
  }
  return make_error("unknown tokenizer.ggml.pre '{}' (known: {})", pre, known);
}

}  // namespace tok::formats
