// The Hugging Face tokenizer.json loader on arbitrary bytes: it fails with
// an error naming the file (one line once cli prints it), or returns a Tokenizer that encodes fixed
// texts and the input itself with count == #ids and ids inside the vocabulary, and decodes what it
// encoded without failing.
#include <cstdint>
#include <string>
#include <vector>

#include "formats/hf_tokenizer.hpp"
#include "fuzz_common.hpp"

namespace {

void check_text(const tok::bpe::Tokenizer& tk, std::string_view text) {
  using tok::bpe::SpecialMode;
  for (SpecialMode mode : {SpecialMode::kText, SpecialMode::kAllow}) {
    auto ids = tk.encode(text, mode);
    if (!ids.ok()) continue;  // e.g. a byte with no token and no fallback
    for (auto id : *ids) {
      if (id >= tk.vocab_size())
        tok::fuzz::fail("hf_json", "encode returned an id past the vocabulary");
    }
    auto n = tk.count(text, mode);
    if (!n.ok() || *n != ids->size()) tok::fuzz::fail("hf_json", "count differs from encode");
    (void)tk.decode(*ids);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = tok::fuzz::as_view(data, size);
  auto tk = tok::formats::load_hf_tokenizer_json(text, "/nonexistent-fuzz/tokenizer.json", "fuzz");
  if (!tk.ok()) {
    const std::string& m = tk.error().message;
    if (m.rfind("/nonexistent-fuzz/tokenizer.json", 0) != 0) {
      tok::fuzz::fail("hf_json", "error does not name the file: " + m);
    }
    // Messages may quote the file's own regex, newlines included: cli's
    // report() prints control bytes as \xNN, which keeps them one line.
    return 0;
  }
  check_text(*tk, "Hello world, ab ab 123 <x> <s>\n\t  é中文 ☃");
  check_text(*tk, text.substr(0, 256));
  return 0;
}
