// Pre-tokenizer properties on arbitrary bytes:
//  - pieces tile the input exactly (no byte lost, duplicated or reordered),
//    no piece is empty;
//  - on valid UTF-8, the hand scanner (split) and the regex engine
//    (split_with_regex) give identical pieces, for every named pattern;
//  - safe_boundary(text, from, limit) is a real boundary: splitting the two
//    halves separately gives the pieces of the whole (what chunked and
//    threaded counting rely on).
// The first input byte picks the pattern so one corpus covers all three.
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_common.hpp"
#include "text/pretokenizer.hpp"

namespace {

const tok::text::PreTokenizer& pattern(unsigned which) {
  static const char* kNames[] = {"gpt2", "cl100k", "o200k"};
  static const tok::text::PreTokenizer* kPre[3] = {};
  which %= 3;
  if (!kPre[which]) {
    auto r = tok::text::PreTokenizer::named(kNames[which]);
    if (!r.ok()) tok::fuzz::fail("pretokenizer", r.error().message);
    kPre[which] = new tok::text::PreTokenizer(std::move(r).value());
  }
  return *kPre[which];
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const auto& pre = pattern(data[0]);
  std::string_view text = tok::fuzz::as_view(data + 1, size - 1);

  std::vector<std::string_view> pieces;
  pre.split(text, [&](std::string_view p) { pieces.push_back(p); });
  const char* expect = text.data();
  for (std::string_view p : pieces) {
    if (p.empty()) tok::fuzz::fail("pretokenizer", "empty piece");
    if (p.data() != expect) tok::fuzz::fail("pretokenizer", "pieces do not tile the input");
    expect += p.size();
  }
  if (expect != text.data() + text.size()) {
    tok::fuzz::fail("pretokenizer", "pieces do not cover the input");
  }

  if (!text.empty()) {
    size_t from = static_cast<size_t>(data[0]) * 131 % text.size();
    size_t cut = pre.safe_boundary(text, from, 4096);
    if (cut < from || cut > text.size())
      tok::fuzz::fail("pretokenizer", "safe_boundary out of range");
    std::vector<std::string_view> halves;
    pre.split(text.substr(0, cut), [&](std::string_view p) { halves.push_back(p); });
    pre.split(text.substr(cut), [&](std::string_view p) { halves.push_back(p); });
    if (halves != pieces) {
      tok::fuzz::fail("pretokenizer", pre.name() + ": safe_boundary " + std::to_string(cut) +
                                          " is not a piece boundary");
    }
  }

  if (tok::text::valid_utf8_prefix(text) == text.size()) {
    std::vector<std::string_view> rx;
    pre.split_with_regex(text, [&](std::string_view p) { rx.push_back(p); });
    if (rx.size() != pieces.size()) {
      tok::fuzz::fail("pretokenizer", pre.name() + ": scanner and regex give " +
                                          std::to_string(pieces.size()) + " vs " +
                                          std::to_string(rx.size()) + " pieces");
    }
    for (size_t i = 0; i < rx.size(); ++i) {
      if (rx[i] != pieces[i]) {
        tok::fuzz::fail("pretokenizer", pre.name() + ": piece " + std::to_string(i) +
                                            " differs between scanner and regex");
      }
    }
  }
  return 0;
}
