#include "cost/tokenizer_set.hpp"

#include "formats/registry.hpp"

namespace tok::cost {

Result<const bpe::Tokenizer*> TokenizerSet::get_encoding(const std::string& spec) {
  auto it = loaded_.find(spec);
  if (it != loaded_.end()) return it->second.get();
  TOK_ASSIGN(bpe::Tokenizer tk, formats::load_tokenizer(spec));
  auto p = std::make_unique<bpe::Tokenizer>(std::move(tk));
  const bpe::Tokenizer* raw = p.get();
  loaded_.emplace(spec, std::move(p));
  return raw;
}

Result<const bpe::Tokenizer*> TokenizerSet::get(const ModelInfo& m) {
  auto r = get_encoding(m.tokenizer);
  if (!r.ok()) {
    // -e no longer stands in for a model's tokenizer (it adds its own column).
    return make_error("model '{}' uses the tokenizer '{}', which is not available: {}", m.id,
                      m.tokenizer, r.error().message);
  }
  return r;
}

}  // namespace tok::cost
