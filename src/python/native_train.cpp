// tok.train: `tok train` as a Python call. Counts the pieces of the files
// (walked binary files skipped, as the CLI does), learns a byte-level BPE
// vocabulary and returns it as a tok.Tokenizer; with `output`, also writes
// OUTPUT (.tiktoken) and OUTPUT.json (pattern and special tokens), which
// tok.load(OUTPUT) and `tok -e OUTPUT` read back.
#include <pybind11/stl.h>

#include "bpe/trainer.hpp"
#include "bpe/word_counter.hpp"
#include "core/atomic_file.hpp"
#include "core/mapped_file.hpp"
#include "core/output_paths.hpp"
#include "io/corpus_files.hpp"
#include "formats/tiktoken_file.hpp"
#include "python/bindings.hpp"
#include "python/native_tokenizer.hpp"
#include "python/py_error.hpp"

namespace tok::python {

namespace {

Result<bpe::Tokenizer> train(const std::vector<std::string>& paths, std::size_t vocab_size,
                             const std::string& pattern, const std::vector<std::string>& specials,
                             std::uint64_t min_frequency, std::size_t max_token_bytes,
                             unsigned threads, const std::string& output) {
  auto pre = text::PreTokenizer::named(pattern);
  if (!pre.ok()) pre = text::PreTokenizer::from_regex(pattern);
  if (!pre.ok()) return make_error("pattern '{}': {}", pattern, pre.error().message);
  TOK_ASSIGN(io::CorpusFiles corpus, io::open_corpus_files(paths, {}));
  std::vector<std::string_view> texts;
  for (const auto& f : corpus.files) texts.push_back(f.bytes());
  if (!output.empty()) {
    // As the CLI: an output may not replace a file read (named or found in a
    // directory), nor the other output.
    std::vector<std::string> inputs, outputs{output, output + ".json"};
    for (const auto& f : corpus.files) inputs.push_back(f.path());
    TOK_TRY(check_outputs(inputs, outputs));
  }
  if (corpus.bytes == 0) {
    return make_error("{}: no text to train on (empty corpus)",
                      paths.empty() ? std::string("(no files)") : paths.front());
  }
  bpe::WordCounts words = bpe::count_words(pre.value(), texts, thread_count(threads));
  bpe::TrainOptions options;
  options.vocab_size = vocab_size;
  options.min_frequency = min_frequency;
  options.max_token_bytes = max_token_bytes;
  TOK_ASSIGN(bpe::TrainResult result, bpe::train_bpe(words, options));
  std::vector<bpe::SpecialToken> sp;
  for (const auto& s : specials) {
    sp.push_back({s, static_cast<bpe::TokenId>(result.tokens.size() + sp.size())});
  }
  if (!output.empty()) {
    TOK_TRY(write_file_atomic(output, formats::write_tiktoken(result.tokens)));
    TOK_TRY(write_file_atomic(output + ".json", formats::write_sidecar({pattern, "", sp})));
  }
  TOK_ASSIGN(bpe::MergeTable table, bpe::MergeTable::from_ranks(std::move(result.tokens)));
  return bpe::Tokenizer("trained", std::move(table), {std::move(pre).value()}, std::move(sp));
}

}  // namespace

void bind_train(py::module_& m) {
  m.def(
      "train",
      [](const std::vector<std::string>& files, std::size_t vocab_size, const std::string& output,
         const std::string& pattern, const std::vector<std::string>& specials,
         std::uint64_t min_frequency, std::size_t max_token_bytes, unsigned threads) {
        if (vocab_size < 256) throw py::value_error("vocab_size must be at least 256");
        // The CLI's own check (tok train --special), so both refuse alike.
        if (Status s = bpe::check_new_specials(specials, "specials"); !s.ok()) {
          throw py::value_error(s.error().message);
        }
        if (!output.empty() && !output.ends_with(".tiktoken")) {
          throw py::value_error("output must end in .tiktoken: " + output);
        }
        Result<bpe::Tokenizer> r = [&] {
          py::gil_scoped_release release;
          return train(files, vocab_size, pattern, specials, min_frequency, max_token_bytes,
                       threads, output);
        }();
        if (!r.ok()) raise_error(r.error().message);
        return NativeTokenizer{std::make_shared<Engine>(std::move(r).value())};
      },
      py::arg("files"), py::arg("vocab_size"), py::arg("output") = "", py::arg("pattern") = "o200k",
      py::arg("specials") = std::vector<std::string>{}, py::arg("min_frequency") = 0,
      py::arg("max_token_bytes") = 0, py::arg("threads") = 0);
}

}  // namespace tok::python
