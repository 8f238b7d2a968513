#include "cost/catalog.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <limits>
#include <type_traits>

#include "core/data_dir.hpp"
#include "core/mapped_file.hpp"
#include "core/suggest.hpp"
#include "formats/json_error.hpp"
#include "formats/registry.hpp"
#include "formats/vocab_catalog.hpp"

namespace tok::cost {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Reads an optional field of the given JSON type into out; a wrong type is an
// error naming the model and the field.
template <class T>
Status field(const json& o, const char* key, T& out, const std::string& where) {
  auto it = o.find(key);
  if (it == o.end() || it->is_null()) return {};
  try {
    out = it->get<T>();
  } catch (const json::exception&) {
    return make_error("{}: field '{}' has the wrong type ({})", where, key, it->type_name());
  }
  return {};
}

// A count (layers, heads, a window in tokens): when present, a whole number
// from 1 to T's maximum. nlohmann would wrap -1 to 2^64-1 and cut 1.5 to 1,
// and 0 would read as "unknown" downstream (a context window of 0 "fits").
template <class T>
Status count_field(const json& o, const char* key, T& out, const std::string& where) {
  static_assert(std::is_unsigned_v<T>);
  auto it = o.find(key);
  if (it == o.end() || it->is_null()) return {};
  auto bad = [&] {
    return make_error("{}: field '{}' must be a whole number from 1 to {} (got {})", where, key,
                      std::numeric_limits<T>::max(), it->dump());
  };
  if (it->is_number_unsigned()) {
    auto v = it->get<std::uint64_t>();
    if (v == 0 || v > std::numeric_limits<T>::max()) return bad();
    out = static_cast<T>(v);
    return {};
  }
  if (it->is_number_integer()) return bad();  // negative
  if (it->is_number_float()) {
    double d = it->get<double>();
    // Integral and in range (2^64 itself is not: the cast would overflow).
    if (!(d >= 1) || d != std::floor(d) || d >= 18446744073709551616.0 ||
        d > static_cast<double>(std::numeric_limits<T>::max())) {
      return bad();
    }
    out = static_cast<T>(d);
    return {};
  }
  return make_error("{}: field '{}' has the wrong type ({})", where, key, it->type_name());
}

Result<Attention> parse_attention(const std::string& s, const std::string& where) {
  if (s == "gqa") return Attention::kGqa;
  if (s == "mha") return Attention::kMha;
  if (s == "mla") return Attention::kMla;
  if (s == "sliding") return Attention::kSliding;
  return make_error("{}: kv.attention '{}' is not one of gqa, mha, mla, sliding", where, s);
}

Result<KvShape> parse_kv(const json& o, const std::string& where) {
  if (!o.is_object()) return make_error("{}: 'kv' must be an object", where);
  KvShape k;
  std::string attention = "gqa";
  TOK_TRY(count_field(o, "layers", k.layers, where));
  TOK_TRY(count_field(o, "heads", k.heads, where));
  TOK_TRY(count_field(o, "kv_heads", k.kv_heads, where));
  TOK_TRY(count_field(o, "head_dim", k.head_dim, where));
  TOK_TRY(field(o, "attention", attention, where));
  TOK_TRY(count_field(o, "window", k.window, where));
  TOK_TRY(count_field(o, "sliding_layers", k.sliding_layers, where));
  TOK_TRY(count_field(o, "latent_dim", k.latent_dim, where));
  TOK_TRY(count_field(o, "qk_head_dim", k.qk_head_dim, where));
  TOK_TRY(count_field(o, "v_head_dim", k.v_head_dim, where));
  TOK_TRY(field(o, "source", k.source, where));
  TOK_ASSIGN(k.attention, parse_attention(attention, where));
  if (k.attention == Attention::kMha && k.kv_heads == 0) k.kv_heads = k.heads;
  if (k.qk_head_dim == 0) k.qk_head_dim = k.head_dim;
  if (k.v_head_dim == 0) k.v_head_dim = k.head_dim;
  if (k.layers == 0 || k.heads == 0) return make_error("{}: kv needs layers and heads", where);
  if (k.attention == Attention::kMla) {
    if (k.latent_dim == 0 || k.qk_head_dim == 0 || k.v_head_dim == 0) {
      return make_error("{}: MLA kv needs latent_dim, qk_head_dim and v_head_dim", where);
    }
  } else if (k.kv_heads == 0 || k.head_dim == 0) {
    return make_error("{}: kv needs kv_heads and head_dim", where);
  }
  if (k.attention == Attention::kSliding) {
    if (k.window == 0) return make_error("{}: sliding attention needs kv.window", where);
    if (k.sliding_layers == 0 || k.sliding_layers > k.layers) k.sliding_layers = k.layers;
  }
  return k;
}

// "tiers": [{"above": N, "input": .., "cached_input": .., "output": ..}],
// ascending; a rate left out keeps the rate below it.
Result<std::vector<PriceTier>> parse_tiers(const json& list, const Price& base,
                                           const std::string& where) {
  if (!list.is_array()) return make_error("{}: 'price.tiers' must be an array", where);
  std::vector<PriceTier> tiers;
  for (const auto& t : list) {
    if (!t.is_object() || !t.contains("above")) {
      return make_error("{}: each price tier needs 'above' (input tokens)", where);
    }
    const PriceTier& below =
        tiers.empty() ? PriceTier{0, base.input, base.cached_input, base.output} : tiers.back();
    PriceTier x = below;
    x.cached_input = -1;
    TOK_TRY(field(t, "above", x.above, where));
    TOK_TRY(field(t, "input", x.input, where));
    TOK_TRY(field(t, "cached_input", x.cached_input, where));
    TOK_TRY(field(t, "output", x.output, where));
    if (x.cached_input < 0) x.cached_input = t.contains("input") ? x.input : below.cached_input;
    if (x.input < 0 || x.output < 0) return make_error("{}: prices must not be negative", where);
    if (!tiers.empty() && x.above <= tiers.back().above) {
      return make_error("{}: price tiers must be in ascending order of 'above'", where);
    }
    tiers.push_back(x);
  }
  return tiers;
}

Result<Price> parse_price(const json& o, const std::string& where) {
  if (!o.is_object()) return make_error("{}: 'price' must be an object", where);
  Price p;
  p.cached_input = -1;
  TOK_TRY(field(o, "input", p.input, where));
  TOK_TRY(field(o, "cached_input", p.cached_input, where));
  TOK_TRY(field(o, "output", p.output, where));
  TOK_TRY(field(o, "date", p.date, where));
  TOK_TRY(field(o, "source", p.source, where));
  TOK_TRY(field(o, "note", p.note, where));
  if (p.cached_input < 0) p.cached_input = p.input;
  if (p.input < 0 || p.output < 0 || p.cached_input < 0) {
    return make_error("{}: prices must not be negative", where);
  }
  if (auto it = o.find("tiers"); it != o.end() && !it->is_null()) {
    TOK_ASSIGN(p.tiers, parse_tiers(*it, p, where));
  }
  if (auto it = o.find("batch"); it != o.end() && !it->is_null()) {
    if (!it->is_object()) return make_error("{}: 'price.batch' must be an object", where);
    BatchRate b;
    TOK_TRY(field(*it, "factor", b.factor, where));
    TOK_TRY(field(*it, "source", b.source, where));
    if (!(b.factor > 0 && b.factor <= 1)) {
      return make_error("{}: price.batch.factor must be in (0, 1], not {}", where, b.factor);
    }
    p.batch = std::move(b);
  }
  return p;
}

}  // namespace

Result<ModelInfo> parse_model(const json& o, const std::string& source) {
  if (!o.is_object() || !o.contains("id") || !o["id"].is_string()) {
    return make_error("{}: every model needs a string 'id'", source);
  }
  ModelInfo m;
  m.id = o["id"].get<std::string>();
  std::string where = fmt::format("{}: model '{}'", source, m.id);
  TOK_TRY(field(o, "aliases", m.aliases, where));
  TOK_TRY(field(o, "provider", m.provider, where));
  TOK_TRY(field(o, "tokenizer", m.tokenizer, where));
  TOK_TRY(field(o, "estimate", m.estimate, where));
  TOK_TRY(field(o, "published_tokenizer", m.published_tokenizer, where));
  if (!m.published_tokenizer.empty() && !formats::find_named_vocab(m.published_tokenizer)) {
    return make_error(
        "{}: 'published_tokenizer' '{}' is not a vocabulary tok can fetch (see "
        "tok vocab list)",
        where, m.published_tokenizer);
  }
  TOK_TRY(field(o, "chat", m.chat, where));
  TOK_TRY(count_field(o, "context_window", m.context_window, where));
  TOK_TRY(count_field(o, "max_output", m.max_output, where));
  TOK_TRY(field(o, "deprecated", m.deprecated, where));
  if (m.tokenizer.empty()) return make_error("{}: 'tokenizer' is required", where);
  if (auto it = o.find("price"); it != o.end()) {
    TOK_ASSIGN(m.price, parse_price(*it, where));
  }
  if (auto it = o.find("kv"); it != o.end() && !it->is_null()) {
    TOK_ASSIGN(m.kv, parse_kv(*it, where));
  }
  m.origin = source;
  return m;
}

Status Catalog::add_json_text(std::string_view text, const std::string& source) {
  TOK_ASSIGN(json doc, formats::parse_json(text, source));
  const json* list = &doc;
  if (doc.is_object()) {
    auto it = doc.find("models");
    if (it == doc.end()) return make_error("{}: expected {{\"models\": [...]}}", source);
    list = &*it;
  }
  if (!list->is_array()) return make_error("{}: 'models' must be an array", source);
  for (const auto& o : *list) {
    TOK_ASSIGN(ModelInfo m, parse_model(o, source));
    auto [it, added] = by_id_.emplace(lower(m.id), models_.size());
    if (added) {
      models_.push_back(std::move(m));
    } else {
      models_[it->second] = std::move(m);
    }
  }
  sources_.push_back(source);
  return {};
}

Status Catalog::add_file(const std::string& path) {
  TOK_ASSIGN(MappedFile f, MappedFile::open(path, kMaxSmallStreamBytes));
  return add_json_text(f.bytes(), path);
}

Result<Catalog> Catalog::load_default(const std::vector<std::string>& extra_files,
                                      std::string* user_error) {
  Catalog c;
  TOK_TRY(c.add_file(vocab_dir() + "/models.json"));
  // No config directory (HOME unset) means no user catalog, never a shared
  // place such as /tmp where another user could plant one.
  if (std::string dir = config_dir(); !dir.empty()) {
    std::string user = dir + "/models.json";
    std::error_code ec;
    if (fs::exists(user, ec)) {
      Catalog with = c;
      Status s = with.add_file(user);
      if (s.ok()) {
        c = std::move(with);
      } else if (user_error) {
        *user_error = s.error().message;
      } else {
        return s.error();
      }
    }
  }
  for (const auto& f : extra_files) TOK_TRY(c.add_file(f));
  c.use_published_tokenizers();
  return c;
}

void Catalog::use_published_tokenizers() {
  std::unordered_map<std::string, bool> installed;  // one look per vocabulary, not per model
  for (auto& m : models_) {
    if (m.published_tokenizer.empty()) continue;
    auto [it, fresh] = installed.try_emplace(m.published_tokenizer, false);
    if (fresh) {
      const formats::NamedVocab* v = formats::find_named_vocab(m.published_tokenizer);
      it->second = v && formats::named_vocab_path(*v);
    }
    if (!it->second) continue;
    m.tokenizer = m.published_tokenizer;
    m.estimate = false;
    m.published = true;
  }
}

std::string_view tokenizer_kind(const ModelInfo& m) {
  if (m.estimate) return "proxy";
  return m.published ? "published" : "exact";
}

namespace {

// A snapshot suffix: "20241022", "2024-08-06", "0613", "v2:0", "v1".
bool is_snapshot(std::string_view tail) {
  if (tail.empty()) return false;
  std::size_t digits = 0;
  for (char c : tail) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      ++digits;
    } else if (c != '-' && c != '.' && c != ':' && c != 'v') {
      return false;
    }
  }
  return tail[0] == 'v' ? digits > 0
                        : std::isdigit(static_cast<unsigned char>(tail[0])) && digits >= 4;
}

// "claude-3-5-sonnet-20241022" -> "claude-3-5-sonnet", "gpt-4o-2024-05-13"
// -> "gpt-4o", "claude-3-5-sonnet@20240620" -> "claude-3-5-sonnet": the name
// without a trailing snapshot date or version, as providers' dated
// snapshots extend the catalog's names; longest first.
std::vector<std::string_view> undated(std::string_view name) {
  std::vector<std::string_view> out;
  for (std::size_t i = name.size(); i-- > 1;) {
    if ((name[i] == '-' || name[i] == '@') && is_snapshot(name.substr(i + 1))) {
      out.push_back(name.substr(0, i));
    }
  }
  return out;
}

}  // namespace

const ModelInfo* Catalog::find(std::string_view name) const {
  if (const ModelInfo* m = find_exact(name)) return m;
  for (std::string_view shorter : undated(name)) {
    if (const ModelInfo* m = find_exact(shorter)) return m;
  }
  return nullptr;
}

const ModelInfo* Catalog::find_exact(std::string_view name) const {
  if (auto it = by_id_.find(lower(name)); it != by_id_.end()) return &models_[it->second];
  for (const auto& m : models_) {
    for (const auto& a : m.aliases) {
      if (iequals(a, name)) return &m;
    }
  }
  return nullptr;
}

std::vector<std::string> Catalog::names() const {
  std::vector<std::string> out;
  for (const auto& m : models_) {
    out.push_back(m.id);
    for (const auto& a : m.aliases) out.push_back(a);
  }
  return out;
}

std::vector<const ModelInfo*> Catalog::search(const std::vector<std::string>& words) const {
  std::vector<const ModelInfo*> out;
  for (const auto& m : models_) {
    std::string hay = lower(m.id + " " + m.provider);
    for (const auto& a : m.aliases) {
      hay += ' ';
      hay += lower(a);
    }
    bool all = std::all_of(words.begin(), words.end(), [&](const std::string& w) {
      return hay.find(lower(w)) != std::string::npos;
    });
    if (all) out.push_back(&m);
  }
  return out;
}

Result<const ModelInfo*> Catalog::get(std::string_view name) const {
  if (const ModelInfo* m = find(name)) return m;
  if (name.empty()) return make_error("empty model name; see `tok models` for the catalog");
  auto near = suggest(name, names());
  std::string hint;
  if (!near.empty()) hint = fmt::format("; did you mean {}?", fmt::join(near, ", "));
  return make_error("unknown model '{}'{}; see `tok models` for the catalog", name, hint);
}

}  // namespace tok::cost
