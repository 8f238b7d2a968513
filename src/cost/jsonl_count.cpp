#include "cost/jsonl_count.hpp"

namespace tok::cost {

Result<bpe::WordCounts> count_jsonl_words(const std::vector<std::string>& paths,
                                          const JsonlOptions& o, const text::PreTokenizer& pre,
                                          JsonlStats& stats) {
  std::vector<bpe::WordCounts> slots(std::max(1u, o.threads));
  auto doc = [&pre](bpe::WordCounts& table, std::string_view text) -> Status {
    pre.split(text, [&](std::string_view piece) { table.add(piece); });
    return {};
  };
  auto flush = [](std::vector<bpe::WordCounts>&) -> Status { return {}; };
  TOK_TRY(for_each_document(paths, o.field, o.skip_bad, slots, doc, flush, stats));
  for (std::size_t t = 1; t < slots.size(); ++t) {
    slots[0].merge_from(slots[t]);
    slots[t] = bpe::WordCounts();
  }
  return std::move(slots[0]);
}

Result<std::vector<std::uint64_t>> count_jsonl_tokens(const std::string& path, const JsonlOptions& o,
                                                      std::span<const bpe::Tokenizer* const> tks,
                                                      bpe::SpecialMode mode, JsonlStats& stats) {
  std::vector<std::vector<std::uint64_t>> slots(std::max(1u, o.threads),
                                                std::vector<std::uint64_t>(tks.size(), 0));
  auto doc = [&](std::vector<std::uint64_t>& sums, std::string_view text) -> Status {
    for (std::size_t k = 0; k < tks.size(); ++k) {
      TOK_ASSIGN(std::size_t n, tks[k]->count(text, mode));
      sums[k] += n;
    }
    return {};
  };
  auto flush = [](std::vector<std::vector<std::uint64_t>>&) -> Status { return {}; };
  TOK_TRY(for_each_document({path}, o.field, o.skip_bad, slots, doc, flush, stats));
  std::vector<std::uint64_t> total(tks.size(), 0);
  for (const auto& s : slots) {
    for (std::size_t k = 0; k < tks.size(); ++k) total[k] += s[k];
  }
  return total;
}

}  // namespace tok::cost
