#include "formats/registry.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>

#include <cctype>
#include <filesystem>

#include "core/data_dir.hpp"
#include "core/flag_hints.hpp"
#include "core/mapped_file.hpp"
#include "core/sha256.hpp"
#include "core/suggest.hpp"
#include "formats/builtin_encodings.hpp"
#include "formats/gguf_reader.hpp"
#include "formats/gguf_vocab.hpp"
#include "formats/hf_tokenizer.hpp"
#include "formats/table_cache.hpp"
#include "formats/tiktoken_file.hpp"
#include "formats/vocab_catalog.hpp"

namespace tok::formats {
namespace fs = std::filesystem;

namespace {

Result<text::PreTokenizer> make_pretokenizer(const std::string& pattern) {
  auto named = text::PreTokenizer::named(pattern);
  if (named.ok()) return named;
  return text::PreTokenizer::from_regex(pattern);
}

// Every rank missing from the file must be a special token's id (p50k_base
// lacks 50256, <|endoftext|>).
Status check_gaps(const bpe::MergeTable& table, const std::vector<bpe::SpecialToken>& specials,
                  std::string_view file_text, const std::string& source) {
  std::size_t n = table.size();
  for (bpe::TokenId id = 0; id < n; ++id) {
    if (table.has(id)) continue;
    bool special = std::any_of(specials.begin(), specials.end(),
                               [&](const bpe::SpecialToken& s) { return s.id == id; });
    if (special) continue;
    // Parse again (error path only) for the line that jumped over it.
    TOK_ASSIGN(TiktokenRanks ranks, parse_tiktoken(file_text, source));
    std::size_t line = 0;
    for (const auto& gap : ranks.gaps) {
      if (gap.rank == id) line = gap.line;
    }
    return make_error("{}:{}: rank {} is missing (ranks must run 0..{} without gaps)", source, line,
                      id, n - 1);
  }
  return {};
}

Result<bpe::Tokenizer> build(const std::string& name, std::string_view file_text,
                             const std::string& source, const std::string& pattern,
                             std::vector<bpe::SpecialToken> specials) {
  auto parse = [&]() -> Result<bpe::MergeTable> {
    TOK_ASSIGN(TiktokenRanks ranks, parse_tiktoken(file_text, source));
    std::size_t n = ranks.tokens.size();
    std::vector<std::uint32_t> priority(n);
    for (std::size_t i = 0; i < n; ++i) priority[i] = static_cast<std::uint32_t>(i);
    auto table = bpe::MergeTable::from_priorities(std::move(ranks.tokens), std::move(priority), {});
    if (!table.ok()) return make_error("{}: {}", source, table.error().message);
    return table;
  };
  TOK_ASSIGN(auto table, cached_merge_table(file_text, parse));
  TOK_TRY(check_gaps(table, specials, file_text, source));
  std::size_t n = table.size();
  for (std::size_t b = 0; b < 256; ++b) {
    if (table.byte_token(static_cast<unsigned char>(b)) == bpe::kNoToken) {
      return make_error("{}: byte 0x{:02x} has no token; a byte-level vocabulary needs all 256",
                        source, b);
    }
  }
  for (const auto& s : specials) {
    if (s.id < n && table.has(s.id)) {
      return make_error("{}: special token {} has id {}, which is an ordinary token's rank", source,
                        s.text, s.id);
    }
  }
  auto pre = make_pretokenizer(pattern);
  if (!pre.ok()) return make_error("{}: {}", source, pre.error().message);
  return bpe::Tokenizer(name, std::move(table), {std::move(pre).value()}, std::move(specials));
}

}  // namespace

Result<bpe::Tokenizer> load_tiktoken_path(const std::string& path, const LoadOptions& options) {
  TOK_ASSIGN(MappedFile f, MappedFile::open(path, kMaxSmallStreamBytes));
  std::string name = fs::path(path).stem().string();
  const BuiltinEncoding* builtin = find_builtin_by_sha256(sha256_hex(f.bytes()));
  std::string pattern;
  std::vector<bpe::SpecialToken> specials;
  std::string sidecar_path = path + ".json";
  std::error_code ec;
  if (builtin) {
    name = builtin->name;
    pattern = builtin->pattern;
    specials = builtin->specials;
  } else if (fs::exists(sidecar_path, ec)) {
    TOK_ASSIGN(MappedFile sf, MappedFile::open(sidecar_path, kMaxSmallStreamBytes));
    TOK_ASSIGN(auto sidecar, parse_sidecar(sf.bytes(), sidecar_path));
    pattern = sidecar.pattern;
    specials = sidecar.specials;
  } else if (!options.pattern) {
    return make_error(
        "{}: unknown .tiktoken file (not a built-in encoding) and no {} beside it; {}", path,
        fs::path(sidecar_path).filename().string(), hints::kPattern);
  }
  if (options.pattern) pattern = *options.pattern;
  return build(name, f.bytes(), path, pattern, std::move(specials));
}

std::vector<std::string> known_encoding_names() {
  std::vector<std::string> out;
  for (const auto& e : builtin_encodings()) {
    out.push_back(e.name);
    for (const auto& a : e.aliases) out.push_back(a);
  }
  for (const auto& v : named_vocabs()) out.push_back(v.name);
  return out;
}

Result<bpe::Tokenizer> load_path(const std::string& s, const LoadOptions& options) {
  std::error_code ec;
  std::string name = fs::path(s).filename().string();
  if (fs::is_directory(s, ec)) {
    fs::path d(s);
    if (fs::is_regular_file(d / "tokenizer.json", ec)) {
      return load_path((d / "tokenizer.json").string(), options);
    }
    if (fs::is_regular_file(d / "vocab.json", ec) && fs::is_regular_file(d / "merges.txt", ec)) {
      return load_vocab_merges((d / "vocab.json").string(), (d / "merges.txt").string(),
                               d.filename().string());
    }
    return make_error(
        "{}: is a directory without tokenizer.json or vocab.json + merges.txt; expected an "
        "encoding name or a vocabulary file",
        s);
  }
  if (s.ends_with(".tiktoken")) return load_tiktoken_path(s, options);
  TOK_ASSIGN(MappedFile f, MappedFile::open(s));
  std::string_view bytes = f.bytes();
  if (bytes.starts_with("GGUF")) {
    TOK_ASSIGN(GgufFile g, GgufFile::open(s));
    return load_gguf_tokenizer(g, fs::path(s).stem().string());
  }
  if (name == "vocab.json") {
    std::string merges = (fs::path(s).parent_path() / "merges.txt").string();
    if (!fs::is_regular_file(merges, ec)) {
      return make_error("{}: a vocab.json needs merges.txt beside it ({} not found)", s, merges);
    }
    return load_vocab_merges(s, merges, vocabulary_name(s));
  }
  std::size_t first = bytes.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && bytes[first] == '{') {
    return load_hf_tokenizer_json(bytes, s, vocabulary_name(s));
  }
  return make_error(
      "{}: unrecognized vocabulary format (expected .tiktoken, .gguf, tokenizer.json or "
      "vocab.json + merges.txt)",
      s);
}

std::string vocabulary_name(std::string_view path) {
  auto generic = [](const std::string& d) {
    static constexpr std::string_view kGeneric[] = {"models", "model", "tokenizer", "tokenizers",
                                                    "snapshots"};
    if (std::find(std::begin(kGeneric), std::end(kGeneric), d) != std::end(kGeneric)) return true;
    return d.size() == 40 && std::all_of(d.begin(), d.end(), [](char c) {
             return std::isxdigit(static_cast<unsigned char>(c));
           });
  };
  fs::path p = fs::path(std::string(path)).lexically_normal();
  for (fs::path dir = p.parent_path(); !dir.empty() && dir.has_filename();
       dir = dir.parent_path()) {
    std::string d = dir.filename().string();
    if (d == "." || d == "..") break;
    if (generic(d)) continue;
    // The Hugging Face hub cache: models--ORG--NAME.
    if (d.starts_with("models--") && d.size() > 8) {
      std::string repo = d.substr(8);
      // Rebuilt rather than replace()d: GCC 12 warns falsely (-Wrestrict) on
      // replace() of a short literal here.
      if (std::size_t sep = repo.find("--"); sep != std::string::npos) {
        repo = repo.substr(0, sep) + "/" + repo.substr(sep + 2);
      }
      return repo;
    }
    return d;
  }
  return p.stem().string();
}

Result<bpe::Tokenizer> load_tokenizer(std::string_view spec, const LoadOptions& options) {
  std::string s(spec);
  if (const BuiltinEncoding* b = find_builtin(s)) {
    std::string path = vocab_dir() + "/" + b->file;
    TOK_ASSIGN(MappedFile f, MappedFile::open(path));
    std::string pattern = options.pattern ? *options.pattern : b->pattern;
    return build(b->name, f.bytes(), path, pattern, b->specials);
  }
  std::error_code ec;
  if (fs::is_regular_file(s, ec) || s == "-" || fs::is_directory(s, ec)) {
    return load_path(s, options);
  }
  if (s.starts_with("hf:")) {
    TOK_ASSIGN(std::string dir, resolve_hf_hub(s.substr(3)));
    return load_path(dir, options);
  }
  if (fs::exists(s, ec)) {
    return make_error(
        "{}: not a regular file (a device, pipe or socket); expected a vocabulary file", s);
  }
  if (s.find('/') != std::string::npos || s.ends_with(".tiktoken")) {
    return make_error("{}: no such vocabulary file", s);
  }
  if (const NamedVocab* v = find_named_vocab(s)) {
    auto path = named_vocab_path(*v);
    if (!path) {
      return make_error("vocabulary '{}' is not on this machine; run `tok vocab fetch {}` ({})", s,
                        v->name, v->source);
    }
    TOK_ASSIGN(auto tk, load_path(*path, options));
    return tk;
  }
  auto near = tok::suggest(s, known_encoding_names());
  std::string hint;
  if (!near.empty()) {
    hint = "; did you mean ";
    for (std::size_t i = 0; i < near.size(); ++i) hint += (i ? ", " : "") + near[i];
    hint += "?";
  }
  return make_error("unknown encoding '{}'{}; known: {}", s, hint,
                    fmt::to_string(fmt::join(known_encoding_names(), ", ")));
}

}  // namespace tok::formats
