// tok.train: `tok train` as a Python call. Counts the pieces of the files
// (walked binary files skipped, as the CLI does), learns a byte-level BPE
// vocabulary of vocab_size ids (special tokens included, as --vocab-size)
// and returns it as a tok.Tokenizer; with `output`, also writes OUTPUT
// (.tiktoken) and OUTPUT.json (split regex and special tokens): the files
// `tok train -o OUTPUT` writes, which tok.load(OUTPUT) and `tok -e OUTPUT`
// read back.
#include <pybind11/stl.h>

#include "bpe/trainer.hpp"
#include "bpe/word_counter.hpp"
#include "core/atomic_file.hpp"
#include "core/mapped_file.hpp"
#include "core/output_paths.hpp"
#include "formats/trained_vocabulary.hpp"
#include "io/corpus_files.hpp"
#include "python/bindings.hpp"
#include "python/native_tokenizer.hpp"
#include "python/py_error.hpp"

namespace tok::python {

namespace {

// `tok train FILES --vocab-size N [-o OUTPUT]`, through the code the CLI
// runs (formats/trained_vocabulary.hpp): the same pattern, sizes, special
// ids, round-trip check and files.
Result<bpe::Tokenizer> train(const std::vector<std::string>& paths, std::size_t vocab_size,
                             const std::string& pattern, const std::vector<std::string>& specials,
                             std::uint64_t min_frequency, std::size_t max_token_bytes,
                             unsigned threads, const std::string& output) {
  TOK_ASSIGN(text::PreTokenizer pre, formats::training_pretokenizer(pattern, "pattern"));
  TOK_ASSIGN(io::CorpusFiles corpus, io::open_corpus_files(paths, {}));
  std::vector<std::string_view> texts;
  for (const auto& f : corpus.files) texts.push_back(f.bytes());
  std::vector<AtomicFile> files;
  if (!output.empty()) {
    // As the CLI: an output may not replace a file read (named or found in a
    // directory), nor the other output; both are created before any work
    // and replace the old files together.
    std::vector<std::string> inputs, outputs{output, output + ".json"};
    for (const auto& f : corpus.files) inputs.push_back(f.path());
    TOK_TRY(check_outputs(inputs, outputs));
    for (const auto& path : outputs) {
      TOK_ASSIGN(AtomicFile f, AtomicFile::create(path));
      files.push_back(std::move(f));
    }
  }
  if (corpus.bytes == 0) {
    return make_error("{}: no text to train on (empty corpus)",
                      paths.empty() ? std::string("(no files)") : paths.front());
  }
  bpe::WordCounts words = bpe::count_words(pre, texts, thread_count(threads));
  TOK_ASSIGN(bpe::TrainResult result,
             bpe::train_bpe(words, formats::train_options(vocab_size, specials.size(),
                                                          min_frequency, max_token_bytes)));
  TOK_ASSIGN(
      formats::TrainedVocabulary v,
      formats::build_trained_vocabulary(std::move(result), pre, pattern, specials, words, false));
  if (!files.empty()) {
    TOK_TRY(files[0].write(v.tiktoken));
    TOK_TRY(files[1].write(v.sidecar));
    TOK_TRY(commit_together(files));
  }
  return std::move(v.tokenizer);
}

}  // namespace

void bind_train(py::module_& m) {
  m.def(
      "train",
      [](const std::vector<std::string>& files, std::size_t vocab_size, const std::string& output,
         const std::string& pattern, const std::vector<std::string>& specials,
         std::uint64_t min_frequency, std::size_t max_token_bytes, unsigned threads) {
        // The CLI's own checks (tok train --special, --vocab-size), so both refuse alike.
        if (Status s = bpe::check_new_specials(specials, "specials"); !s.ok()) {
          throw py::value_error(s.error().message);
        }
        if (Status s = formats::check_vocab_size(vocab_size, specials.size(), "vocab_size");
            !s.ok()) {
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
