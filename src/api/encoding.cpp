#include <utility>

#include "bpe/tokenizer.hpp"
#include "formats/registry.hpp"
#include "tok/tok.hpp"

namespace tok {

namespace {
bpe::SpecialMode internal_mode(SpecialMode mode) {
  switch (mode) {
    case SpecialMode::kAllow: return bpe::SpecialMode::kAllow;
    case SpecialMode::kText: return bpe::SpecialMode::kText;
    case SpecialMode::kError: break;
  }
  return bpe::SpecialMode::kError;
}
}  // namespace

Encoding::Encoding(std::shared_ptr<const bpe::Tokenizer> tokenizer)
    : tokenizer_(std::move(tokenizer)) {}

Result<Encoding> Encoding::load(std::string_view spec) {
  TOK_ASSIGN(bpe::Tokenizer tokenizer, formats::load_tokenizer(spec));
  return Encoding(std::make_shared<const bpe::Tokenizer>(std::move(tokenizer)));
}

const std::string& Encoding::name() const { return tokenizer_->name(); }

std::size_t Encoding::vocab_size() const { return tokenizer_->vocab_size(); }

Result<std::vector<TokenId>> Encoding::encode(std::string_view text, SpecialMode mode) const {
  return tokenizer_->encode(text, internal_mode(mode));
}

Result<std::size_t> Encoding::count(std::string_view text, SpecialMode mode,
                                    unsigned threads) const {
  return tokenizer_->count(text, internal_mode(mode), threads);
}

Result<std::string> Encoding::decode(std::span<const TokenId> ids) const {
  return tokenizer_->decode(ids);
}

}  // namespace tok
