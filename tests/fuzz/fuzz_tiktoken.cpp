// The .tiktoken loader on arbitrary bytes: parse_tiktoken either fails with a
// message naming the source, or returns tokens that build a MergeTable (or
// fail cleanly); a table that builds must round-trip its own tokens, and
// write_tiktoken(parse(x)) must parse back to the same tokens.
#include <cstdint>
#include <string>
#include <vector>

#include "bpe/encoder.hpp"
#include "bpe/merge_table.hpp"
#include "formats/tiktoken_file.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = tok::fuzz::as_view(data, size);
  auto tokens = tok::formats::parse_tiktoken(text, "fuzz.tiktoken");
  if (!tokens.ok()) {
    if (tokens.error().message.rfind("fuzz.tiktoken", 0) != 0) {
      tok::fuzz::fail("tiktoken", "error does not name the file: " + tokens.error().message);
    }
    return 0;
  }
  const auto& ranks = *tokens;
  std::vector<std::string> copy;
  for (const auto& t : ranks.tokens) copy.push_back(t.value_or(""));
  if (ranks.gaps.empty()) {
    std::string written = tok::formats::write_tiktoken(copy);
    auto again = tok::formats::parse_tiktoken(written, "written");
    if (!again.ok() || again->tokens != ranks.tokens) {
      tok::fuzz::fail("tiktoken", "write/parse round trip differs");
    }
  }
  for (const auto& g : ranks.gaps) {
    if (g.rank >= ranks.tokens.size() || ranks.tokens[g.rank])
      tok::fuzz::fail("tiktoken", "bad gap");
  }
  // Built as the registry builds it: priority = rank, gaps have no token.
  std::vector<std::uint32_t> priority(ranks.tokens.size());
  for (size_t i = 0; i < priority.size(); ++i) priority[i] = static_cast<std::uint32_t>(i);
  auto table = tok::bpe::MergeTable::from_priorities(std::move(tokens).value().tokens,
                                                     std::move(priority), {});
  if (!table.ok()) return 0;
  // Concatenations of tokens must encode (through real merges, not the
  // whole-piece shortcut) to ids of the table whose bytes give the input
  // back, unless a byte has no token at all (allowed in a bare table, refused
  // by the loader): such a byte is dropped.
  tok::bpe::EncodeScratch scratch;
  std::vector<tok::bpe::TokenId> ids;
  for (size_t r = 0; r < copy.size() && r < 64; ++r) {
    std::string piece = copy[r] + copy[(r * 7 + 1) % copy.size()] + copy[(r + 3) % copy.size()];
    ids.clear();
    tok::bpe::encode_piece(*table, piece, ids, scratch);
    bool complete = true;
    for (unsigned char c : piece) {
      if (table->byte_token(c) == tok::bpe::kNoToken) complete = false;
    }
    std::string back;
    for (auto id : ids) {
      if (!table->has(id)) tok::fuzz::fail("tiktoken", "encode returned an id the table lacks");
      back += table->bytes(id);
    }
    if (complete && back != piece) tok::fuzz::fail("tiktoken", "tokens do not decode to the piece");
  }
  return 0;
}
