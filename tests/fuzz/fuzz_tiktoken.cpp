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
  std::vector<std::string> copy = *tokens;
  std::string written = tok::formats::write_tiktoken(copy);
  auto again = tok::formats::parse_tiktoken(written, "written");
  if (!again.ok() || *again != copy) tok::fuzz::fail("tiktoken", "write/parse round trip differs");

  auto table = tok::bpe::MergeTable::from_ranks(std::move(tokens).value());
  if (!table.ok()) return 0;
  // Every token that is reachable must encode to bytes that decode back.
  tok::bpe::EncodeScratch scratch;
  std::vector<tok::bpe::TokenId> ids;
  for (size_t r = 0; r < copy.size() && r < 64; ++r) {
    ids.clear();
    tok::bpe::encode_piece(*table, copy[r], ids, scratch);
    std::string back;
    for (auto id : ids) {
      if (id == tok::bpe::kNoToken) {
        back.clear();
        break;  // a byte with no token: allowed in a table, not encodable
      }
      back += table->bytes(id);
    }
    if (!back.empty() && back != copy[r]) tok::fuzz::fail("tiktoken", "token does not round-trip");
  }
  return 0;
}
