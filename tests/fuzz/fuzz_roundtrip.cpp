// Encode/decode on arbitrary bytes, for o200k_base, cl100k_base and r50k_base:
//   decode(encode(x)) == x, count(x) == encode(x).size(), and chunked encoding
//   (the way `tok encode` streams) equals whole-text encoding.
// Special-token strings are encoded as text (kText) so every input is valid;
// kAllow is checked too, for the round trip.
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_common.hpp"

namespace {

void check(const tok::bpe::Tokenizer& tk, std::string_view text) {
  using tok::bpe::SpecialMode;
  for (SpecialMode mode : {SpecialMode::kText, SpecialMode::kAllow}) {
    auto ids = tk.encode(text, mode);
    if (!ids.ok())
      tok::fuzz::fail("roundtrip", tk.name() + ": encode failed: " + ids.error().message);
    auto back = tk.decode(*ids);
    if (!back.ok())
      tok::fuzz::fail("roundtrip", tk.name() + ": decode failed: " + back.error().message);
    if (*back != text) tok::fuzz::fail("roundtrip", tk.name() + ": decode(encode(x)) != x");
    auto n = tk.count(text, mode, 1);
    if (!n.ok() || *n != ids->size()) {
      tok::fuzz::fail("roundtrip", tk.name() + ": count != encode().size()");
    }
    // Small chunks force many cut points on short inputs.
    std::vector<size_t> cuts = tk.chunk_boundaries(text, 7, mode);
    std::vector<tok::bpe::TokenId> chunked;
    tok::bpe::EncodeScratch scratch;
    for (size_t c = 0; c + 1 < cuts.size(); ++c) {
      if (cuts[c + 1] < cuts[c]) tok::fuzz::fail("roundtrip", "chunk boundaries not increasing");
      (void)tk.encode(text.substr(cuts[c], cuts[c + 1] - cuts[c]), mode, chunked, scratch);
    }
    if (chunked != *ids) tok::fuzz::fail("roundtrip", tk.name() + ": chunked encode differs");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const tok::bpe::Tokenizer& o200k = tok::fuzz::builtin("o200k_base");
  static const tok::bpe::Tokenizer& cl100k = tok::fuzz::builtin("cl100k_base");
  static const tok::bpe::Tokenizer& r50k = tok::fuzz::builtin("r50k_base");
  std::string_view text = tok::fuzz::as_view(data, size);
  check(o200k, text);
  check(cl100k, text);
  check(r50k, text);
  return 0;
}
