#include "formats/trained_vocabulary.hpp"

#include <algorithm>

#include "formats/hf_json_writer.hpp"
#include "formats/tiktoken_file.hpp"

namespace tok::formats {

Result<text::PreTokenizer> training_pretokenizer(const std::string& pattern, std::string_view arg) {
  auto named = text::PreTokenizer::named(pattern);
  if (named.ok()) return named;
  auto regex = text::PreTokenizer::from_regex(pattern);
  if (!regex.ok()) return make_error("{} '{}': {}", arg, pattern, regex.error().message);
  return regex;
}

Status check_vocab_size(std::size_t vocab_size, std::size_t specials, std::string_view arg) {
  if (vocab_size >= 256 + specials) return {};
  return make_error("{} {} is too small: a byte-level vocabulary needs 256 byte tokens{}", arg,
                    vocab_size,
                    specials ? fmt::format(" + {} special tokens", specials) : std::string());
}

bpe::TrainOptions train_options(std::size_t vocab_size, std::size_t specials,
                                std::uint64_t min_frequency, std::size_t max_token_bytes) {
  bpe::TrainOptions o;
  o.vocab_size = vocab_size - specials;
  o.min_frequency = min_frequency;
  o.max_token_bytes = max_token_bytes;
  return o;
}

namespace {

// Every word must encode and decode back to itself with the new vocabulary.
Status check_round_trip(const bpe::Tokenizer& tk, const bpe::WordCounts& words) {
  bpe::EncodeScratch scratch;
  std::vector<bpe::TokenId> ids;
  for (std::size_t i = 0; i < std::min<std::size_t>(words.size(), 20000); ++i) {
    ids.clear();
    TOK_TRY(tk.encode(words.word(i), bpe::SpecialMode::kText, ids, scratch));
    TOK_ASSIGN(std::string back, tk.decode(ids));
    if (back != words.word(i)) {
      return make_error("internal error: the trained vocabulary does not round-trip a word");
    }
  }
  return {};
}

}  // namespace

Result<TrainedVocabulary> build_trained_vocabulary(bpe::TrainResult result,
                                                   const text::PreTokenizer& pre,
                                                   const std::string& pattern,
                                                   const std::vector<std::string>& specials,
                                                   const bpe::WordCounts& words, bool hf_json) {
  std::vector<bpe::SpecialToken> sp;
  for (const auto& s : specials) {
    sp.push_back({s, static_cast<bpe::TokenId>(result.tokens.size() + sp.size())});
  }
  std::size_t learned = result.tokens.size();
  std::string tiktoken = write_tiktoken(result.tokens);
  TOK_ASSIGN(bpe::MergeTable table, bpe::MergeTable::from_ranks(std::move(result.tokens)));
  std::string hf;
  if (hf_json) hf = write_hf_tokenizer_json(table, pre.pattern(), sp);
  // The regex itself, so that other tiktoken loaders split as tok does.
  std::string name = text::PreTokenizer::named(pattern).ok() ? pattern : std::string();
  std::string sidecar = write_sidecar({pre.pattern(), name, sp});
  bpe::Tokenizer tk("trained", std::move(table), {pre}, std::move(sp));
  TOK_TRY(check_round_trip(tk, words));
  return TrainedVocabulary{std::move(tk), std::move(tiktoken), std::move(sidecar), std::move(hf),
                           learned};
}

}  // namespace tok::formats
