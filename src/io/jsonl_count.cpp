#include "io/jsonl_count.hpp"

namespace tok::io {

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

Result<std::vector<std::uint64_t>> count_jsonl_tokens(const std::string& path,
                                                      const JsonlOptions& o,
                                                      std::span<const bpe::Tokenizer* const> tks,
                                                      bpe::SpecialMode mode, JsonlStats& stats) {
  // Scratch per slot and tokenizer: documents are small, and a fresh
  // scratch per call cost about as much as counting one.
  struct Slot {
    std::vector<std::uint64_t> sums;
    std::vector<bpe::EncodeScratch> scratch;
  };
  std::vector<Slot> slots(std::max(1u, o.threads));
  for (Slot& s : slots) {
    s.sums.assign(tks.size(), 0);
    s.scratch.resize(tks.size());
  }
  auto doc = [&](Slot& s, std::string_view text) -> Status {
    for (std::size_t k = 0; k < tks.size(); ++k) {
      TOK_ASSIGN(std::size_t n, tks[k]->count(text, mode, s.scratch[k]));
      s.sums[k] += n;
    }
    return {};
  };
  auto flush = [](std::vector<Slot>&) -> Status { return {}; };
  TOK_TRY(for_each_document({path}, o.field, o.skip_bad, slots, doc, flush, stats));
  std::vector<std::uint64_t> total(tks.size(), 0);
  for (const Slot& s : slots) {
    for (std::size_t k = 0; k < tks.size(); ++k) total[k] += s.sums[k];
  }
  return total;
}

}  // namespace tok::io
