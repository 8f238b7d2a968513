// The model catalog: what `-m MODEL` means. Each model names its tokenizer
// (a built-in encoding or a vocabulary file/name the formats registry loads),
// its context window and output limit, prices per million tokens with the
// date and source they were read from, its chat-overhead family and, for
// open-weight models, the KV-cache shape used by --kv.
//
// Sources, later ones overriding earlier entries with the same id:
// vocab/models.json (shipped, built by scripts/update-prices), then
// $XDG_CONFIG_HOME/tok/models.json, then each --models FILE. Commands read it
// only when a model is asked for (-m, --models), so a broken user file never
// stops a plain `tok count FILE`. Counts (layers, windows, ...) must be whole
// numbers >= 1 when given. The catalog is
// only data: tokenizers are resolved lazily, when a model is actually used,
// so a model whose vocabulary is not installed costs nothing until chosen.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/result.hpp"

namespace tok::cost {

enum class Attention { kGqa, kMha, kMla, kSliding };

// KV-cache geometry of an open-weight model (its config.json values).
struct KvShape {
  std::uint32_t layers = 0;
  std::uint32_t heads = 0;     // query heads
  std::uint32_t kv_heads = 0;  // key/value heads (GQA); == heads for MHA
  std::uint32_t head_dim = 0;
  Attention attention = Attention::kGqa;
  std::uint64_t window = 0;          // sliding window in tokens (kSliding)
  std::uint32_t sliding_layers = 0;  // layers that use the window; others are global
  std::uint32_t latent_dim = 0;      // MLA: values cached per token per layer
  std::uint32_t qk_head_dim = 0;     // MLA: query/key dim per head (else head_dim)
  std::uint32_t v_head_dim = 0;      // MLA: value dim per head (else head_dim)
  std::string source;                // where these numbers were read
};

// A long-context tier: a request with more than `above` input tokens (cached
// ones included) is billed at these rates for all its tokens, as Google and
// Anthropic bill and genai-prices computes.
struct PriceTier {
  std::uint64_t above = 0;
  double input = 0;
  double cached_input = 0;
  double output = 0;
};

// Batch API rates: the standard (or tier) rates times `factor`.
struct BatchRate {
  double factor = 1;
  std::string source;  // where the discount is documented
};

struct Price {
  double input = 0;                // USD per million input tokens
  double cached_input = 0;         // USD per million cached input tokens
  double output = 0;               // USD per million output tokens
  std::vector<PriceTier> tiers;    // ascending `above`; empty: one rate at any length
  std::optional<BatchRate> batch;  // absent: no batch discount known
  std::string date;                // YYYY-MM-DD the price was read
  std::string source;              // e.g. "npm @pydantic/genai-prices 0.1.8 (openai/gpt-4o)"
  std::string note;
};

struct ModelInfo {
  std::string id;
  std::vector<std::string> aliases;
  std::string provider;
  std::string tokenizer;  // encoding name or vocabulary path/name
  // The tokenizer is not public: counts come from `tokenizer` as a proxy and
  // every report says so.
  bool estimate = false;
  // A tokenizer the provider published (a named vocabulary, installed by
  // `tok vocab fetch NAME`): once it is on this machine, load_default puts
  // it in `tokenizer`, clears `estimate` and sets `published`; until then the
  // proxy counts. Its agreement with the provider's own counts is not known.
  std::string published_tokenizer;
  bool published = false;
  std::string chat = "openai";  // chat-overhead family (see chat.hpp)
  std::uint64_t context_window = 0;
  std::uint64_t max_output = 0;
  Price price;
  std::optional<KvShape> kv;
  std::string origin;       // the catalog file this entry came from
  bool deprecated = false;  // the provider retired or deprecated it
};

class Catalog {
 public:
  // Shipped catalog + user config file + extra files (--models), in order.
  // With user_error, a broken user file is left out and its error put there
  // (`tok models` still lists the rest); without, it is the error.
  static Result<Catalog> load_default(const std::vector<std::string>& extra_files,
                                      std::string* user_error = nullptr);
  // Adds (or overrides by id) the models of one catalog JSON file.
  Status add_file(const std::string& path);
  Status add_json_text(std::string_view text, const std::string& source);

  const std::vector<ModelInfo>& models() const { return models_; }
  // By id or alias (case-insensitive), else by the name without a trailing
  // date or version ("claude-3-5-sonnet-20241022", "gpt-4o-2024-05-13",
  // "...@20240620"); nullptr if unknown.
  const ModelInfo* find(std::string_view name) const;
  // find() or an error "unknown model 'x'; did you mean ...".
  Result<const ModelInfo*> get(std::string_view name) const;
  std::vector<std::string> names() const;
  // Models whose id, alias or provider contains every word (case-insensitive).
  std::vector<const ModelInfo*> search(const std::vector<std::string>& words) const;
  const std::vector<std::string>& sources() const { return sources_; }

 private:
  const ModelInfo* find_exact(std::string_view name) const;
  // Models with a published_tokenizer that is installed count with it.
  void use_published_tokenizers();

  std::vector<ModelInfo> models_;
  std::vector<std::string> sources_;
  // Lower-case id -> index in models_: a catalog of ~1,500 models merged with
  // user files stays linear instead of quadratic.
  std::unordered_map<std::string, std::size_t> by_id_;
};

// How the model's counts relate to its provider's: "exact" (its own
// tokenizer), "published" (the tokenizer its provider published) or "proxy"
// (an estimate).
std::string_view tokenizer_kind(const ModelInfo& m);

// Parses one model object (exposed for tests); source names it in errors.
Result<ModelInfo> parse_model(const nlohmann::json& object, const std::string& source);

}  // namespace tok::cost
