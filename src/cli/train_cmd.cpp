// tok train [FILE|DIR...] --vocab-size N -o OUT [options]
// Counts the pre-tokenized words of a corpus (in parallel), learns byte-level
// BPE merges and writes OUT.tiktoken + OUT.tiktoken.json (+ OUT.tokenizer.json).
#include <fmt/format.h>
#include <sys/resource.h>

#include <chrono>
#include <memory>
#include <optional>
#include <vector>

#include "bpe/tokenizer.hpp"
#include "bpe/trainer.hpp"
#include "bpe/word_counter.hpp"
#include "cli/command.hpp"
#include "cli/numeric_options.hpp"
#include "cli/progress_bar.hpp"
#include "cli/walk_options.hpp"
#include "core/atomic_file.hpp"
#include "core/number_format.hpp"
#include "core/output.hpp"
#include "core/system_cpus.hpp"
#include "formats/trained_vocabulary.hpp"
#include "formats/word_counts_file.hpp"
#include "io/corpus_files.hpp"
#include "io/jsonl_count.hpp"
#include "text/pretokenizer.hpp"

namespace tok::cli {
namespace {

struct TrainArgs {
  std::vector<std::string> inputs;
  std::size_t vocab_size = 0;
  std::string out;
  std::string pattern;  // empty: the counts files' pattern, else o200k
  std::uint64_t min_frequency = 0;
  std::vector<std::string> specials;
  std::size_t max_token_bytes = 0;
  unsigned threads = 0;
  bool quiet = false;
  std::string format = "tiktoken";
  std::string save_counts;
  std::vector<std::string> from_counts;
  std::string jsonl;  // --jsonl FIELD: the inputs are JSON Lines documents
  bool skip_bad = false;
  WalkFlags walk;
};

struct Stats {
  std::size_t bytes = 0;
  std::optional<std::uint64_t> documents;  // --jsonl: documents read, and bad lines skipped
  std::uint64_t skipped = 0;
  double count_seconds = 0, merge_seconds = 0;
};

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// OUT names the vocabulary; ".tiktoken" is added unless already there.
std::string base_name(const std::string& out) {
  constexpr std::string_view kExt = ".tiktoken";
  return out.ends_with(kExt) ? out.substr(0, out.size() - kExt.size()) : out;
}

// --jsonl: each line's field is one document, split on its own.
Result<bpe::WordCounts> count_jsonl_corpus(const TrainArgs& a, const text::PreTokenizer& pre,
                                           Stats& stats) {
  TOK_ASSIGN(io::JsonlField field, io::parse_jsonl_field(a.jsonl));
  io::JsonlOptions o{field, a.skip_bad, a.threads ? a.threads : available_cpus()};
  std::vector<std::string> paths = a.inputs;
  if (paths.empty()) paths.push_back("-");
  io::JsonlStats js;
  TOK_ASSIGN(bpe::WordCounts words, io::count_jsonl_words(paths, o, pre, js));
  stats.bytes = js.text_bytes;
  stats.documents = js.documents;
  stats.skipped = js.bad;
  if (js.bad && !a.quiet) {
    warn(fmt::format("skipped {} bad line{} (first: {})", js.bad, js.bad == 1 ? "" : "s",
                     js.first_bad));
  }
  if (js.text_bytes == 0)
    return make_error("{}: no text to train on (no documents)", io::jsonl_name(paths.front()));
  return words;
}

// `outputs`: no file found by walking a directory may be one of them (the
// paths named on the command line were checked before the outputs opened).
Result<bpe::WordCounts> count_corpus(const TrainArgs& a, const text::PreTokenizer& pre,
                                     const std::vector<std::string>& outputs, Stats& stats) {
  if (!a.jsonl.empty()) return count_jsonl_corpus(a, pre, stats);
  std::vector<std::string> inputs = a.inputs;
  if (inputs.empty()) inputs.push_back("-");
  TOK_ASSIGN(io::CorpusFiles corpus, io::open_corpus_files(inputs, a.walk.options()));
  std::vector<std::string> read;
  for (const auto& f : corpus.files) read.push_back(f.path());
  require_distinct_outputs(read, outputs);
  if (!a.quiet) {
    std::size_t n = corpus.skipped_binary.size();
    for (std::size_t i = 0; i < std::min<std::size_t>(n, 5); ++i) {
      std::fprintf(stderr, "tok: note: skipping binary file %s\n",
                   one_line(corpus.skipped_binary[i]).c_str());
    }
    if (n > 5) std::fprintf(stderr, "tok: note: skipped %zu more binary files\n", n - 5);
  }
  if (corpus.bytes == 0) {
    return make_error("{}: no text to train on (empty corpus)",
                      a.inputs.empty() ? std::string("<stdin>") : a.inputs.front());
  }
  std::vector<std::string_view> texts;
  for (const auto& f : corpus.files) texts.push_back(f.bytes());
  unsigned threads = a.threads ? a.threads : available_cpus();
  bpe::CountProgress progress;
  stats.bytes = corpus.bytes;
  ProgressBar bar(
      "counting", corpus.bytes, ProgressBar::Unit::kBytes,
      [&] { return progress.bytes_done.load(); }, !a.quiet);
  return bpe::count_words(pre, texts, threads, &progress);
}

// Sums the shards; all must have been counted with the same pattern.
Result<bpe::WordCounts> read_counts(const std::vector<std::string>& paths, std::string& pattern) {
  bpe::WordCounts words;
  std::string first;
  for (const auto& p : paths) {
    TOK_ASSIGN(MappedFile f, MappedFile::open(p));
    TOK_ASSIGN(std::string pat, formats::read_word_counts(f.bytes(), p, words));
    if (first.empty()) {
      first = pat;
    } else if (pat != first) {
      return make_error(
          "{}: counted with pattern '{}', but {} with '{}'; shards must share one pattern", p, pat,
          paths.front(), first);
    }
  }
  if (!pattern.empty() && pattern != first) {
    return make_error("{}: counted with pattern '{}', not the --pattern '{}'", paths.front(), first,
                      pattern);
  }
  pattern = first;
  return words;
}

struct Outputs {
  std::vector<AtomicFile> files;   // commit_together once all are written
  std::vector<std::string> paths;  // of the files, as given
  int counts = -1, tiktoken = -1, sidecar = -1, hf = -1;
};

// Creates every output's temporary file up front: an unwritable directory
// fails before any work, and a failed run leaves no partial file.
// None may be an input (a corpus file, stdin, a --from-counts table).
Result<Outputs> open_outputs(const TrainArgs& a) {
  Outputs o;
  std::vector<std::pair<std::string, int*>> paths;
  if (!a.save_counts.empty() && a.save_counts != "-") paths.emplace_back(a.save_counts, &o.counts);
  if (!a.out.empty()) {
    std::string base = base_name(a.out);
    paths.emplace_back(base + ".tiktoken", &o.tiktoken);
    paths.emplace_back(base + ".tiktoken.json", &o.sidecar);
    if (a.format != "tiktoken") paths.emplace_back(base + ".tokenizer.json", &o.hf);
  }
  std::vector<std::string> inputs = a.inputs, outputs;
  if (a.inputs.empty() && a.from_counts.empty()) inputs.push_back("-");
  inputs.insert(inputs.end(), a.from_counts.begin(), a.from_counts.end());
  for (const auto& p : paths) outputs.push_back(p.first);
  require_distinct_outputs(inputs, outputs);
  o.paths = outputs;
  for (auto& [path, slot] : paths) {
    TOK_ASSIGN(AtomicFile f, AtomicFile::create(path));
    *slot = static_cast<int>(o.files.size());
    o.files.push_back(std::move(f));
  }
  return o;
}

Status write_vocabulary(const TrainArgs& a, const text::PreTokenizer& pre,
                        const std::string& pattern, bpe::TrainResult result,
                        const bpe::WordCounts& words, Outputs& out) {
  TOK_ASSIGN(formats::TrainedVocabulary v,
             formats::build_trained_vocabulary(std::move(result), pre, pattern, a.specials, words,
                                               out.hf >= 0));
  TOK_TRY(out.files[out.tiktoken].write(v.tiktoken));
  TOK_TRY(out.files[out.sidecar].write(v.sidecar));
  if (out.hf >= 0) TOK_TRY(out.files[out.hf].write(v.hf_json));
  return {};
}

Status check_args(const TrainArgs& a) {
  if (!a.from_counts.empty() && !a.inputs.empty()) {
    throw UsageError{"train: give input files or --from-counts, not both"};
  }
  if (a.out.empty() && a.save_counts.empty()) throw UsageError{"train: -o OUT is required"};
  if (a.jsonl.empty() && a.skip_bad) throw UsageError{"train: --skip-bad needs --jsonl FIELD"};
  if (!a.jsonl.empty() && !a.from_counts.empty()) {
    throw UsageError{"train: --jsonl reads text; --from-counts reads tables, not both"};
  }
  if (!a.out.empty() && a.vocab_size == 0) throw UsageError{"train: --vocab-size N is required"};
  TOK_TRY(bpe::check_new_specials(a.specials, "--special"));
  if (!a.out.empty())
    TOK_TRY(formats::check_vocab_size(a.vocab_size, a.specials.size(), "--vocab-size"));
  return {};
}

std::uint64_t peak_memory_bytes() {
  struct rusage ru {};
  ::getrusage(RUSAGE_SELF, &ru);
  return static_cast<std::uint64_t>(ru.ru_maxrss) * 1024;  // ru_maxrss is in KiB on Linux
}

Result<bpe::TrainResult> learn(const TrainArgs& a, const bpe::WordCounts& words, Stats& stats) {
  bpe::TrainOptions opt =
      formats::train_options(a.vocab_size, a.specials.size(), a.min_frequency, a.max_token_bytes);
  bpe::TrainProgress progress;
  auto t = Clock::now();
  Result<bpe::TrainResult> r = make_error("not run");
  {
    ProgressBar bar(
        "merging", opt.vocab_size - 256, ProgressBar::Unit::kCount,
        [&] { return progress.merges_done.load(); }, !a.quiet);
    r = bpe::train_bpe(words, opt, &progress);
  }
  stats.merge_seconds = seconds_since(t);
  return r;
}

Status train(const TrainArgs& a, Stats& stats, std::string& summary) {
  TOK_TRY(check_args(a));
  std::string pattern = a.pattern;
  TOK_ASSIGN(Outputs out, open_outputs(a));
  auto t = Clock::now();
  bpe::WordCounts words;
  if (!a.from_counts.empty()) {
    TOK_ASSIGN(words, read_counts(a.from_counts, pattern));
    if (words.empty())
      return make_error("{}: no words to train on (empty table)", a.from_counts.front());
  }
  if (pattern.empty()) pattern = "o200k";
  TOK_ASSIGN(text::PreTokenizer pre, formats::training_pretokenizer(pattern, "--pattern"));
  if (a.from_counts.empty()) {
    TOK_ASSIGN(words, count_corpus(a, pre, out.paths, stats));
  }
  stats.count_seconds = seconds_since(t);
  if (out.counts >= 0)
    TOK_TRY(out.files[out.counts].write(formats::write_word_counts(words, pattern)));
  if (a.save_counts == "-") {
    Output stdout_writer;
    stdout_writer.write(formats::write_word_counts(words, pattern));
    stdout_writer.flush();
  }
  std::size_t learned = 0;
  if (!a.out.empty()) {
    TOK_ASSIGN(bpe::TrainResult result, learn(a, words, stats));
    learned = result.tokens.size();
    if (learned + a.specials.size() < a.vocab_size && !a.quiet) {
      warn(fmt::format("learned only {} tokens (no more pairs{}); vocabulary has {} ids", learned,
                       a.min_frequency > 1 ? " at --min-frequency" : "",
                       learned + a.specials.size()));
    }
    TOK_TRY(write_vocabulary(a, pre, pattern, std::move(result), words, out));
  }
  TOK_TRY(commit_together(out.files));
  // The documents of a dataset, so that a run over parts (scripts/dask/train.py) can sum them.
  std::string documents;
  if (stats.documents) {
    documents =
        fmt::format(" ({} documents, {} bad lines skipped)", *stats.documents, stats.skipped);
  }
  summary = fmt::format(
      "{} read{}, {} unique words, {} merges learned, {:.2f} s "
      "(count {:.2f} s, merge {:.2f} s), peak memory {}",
      human_bytes(static_cast<std::uint64_t>(stats.bytes)), documents, words.size(),
      learned ? learned - 256 : 0, stats.count_seconds + stats.merge_seconds, stats.count_seconds,
      stats.merge_seconds, human_bytes(peak_memory_bytes()));
  return {};
}

int run_train(const TrainArgs& a) {
  Stats stats;
  std::string summary;
  Status s = train(a, stats, summary);
  if (!s.ok()) return report(s.error());
  if (!a.quiet) std::fprintf(stderr, "tok: train: %s\n", summary.c_str());
  return 0;
}

}  // namespace

void add_train(CLI::App& app, CommandTable& commands) {
  auto a = std::make_shared<TrainArgs>();
  CLI::App* sub = app.add_subcommand("train", "Learn a byte-level BPE vocabulary from text");
  sub->add_option("FILE", a->inputs,
                  "Text files or directories (walked recursively, as tok count walks them); "
                  "default: stdin");
  a->walk.add(sub);
  sub->add_option("--vocab-size", a->vocab_size,
                  "Total ids: 256 byte tokens + merges + special tokens")
      ->check(integer_in(1, max_of<std::uint32_t>()));
  sub->add_option("-o,--output", a->out,
                  "Output name: writes OUT.tiktoken and OUT.tiktoken.json (+ OUT.tokenizer.json)");
  sub->add_option("--pattern", a->pattern,
                  "Pre-tokenizer: gpt2, cl100k, o200k or a regex (default: o200k)");
  sub->add_option("--min-frequency", a->min_frequency, "Never merge a pair seen fewer times")
      ->check(integer_in(0, max_of<std::uint64_t>()));
  sub->add_option("--special-token,--special", a->specials,
                  "Special token TOKEN (repeatable); ids follow the learned tokens, in order "
                  "(--special: the old name, kept for one release)");
  sub->add_option("--max-token-bytes", a->max_token_bytes,
                  "Never create a token longer than N bytes")
      ->check(integer_in(0, max_of<std::uint32_t>()));
  sub->add_option("--threads", a->threads,
                  "Counting threads (default: the CPUs tok may use); never changes the result")
      ->check(integer_in(0, kMaxThreads));
  sub->add_option("--format", a->format, "tiktoken (default), hf (also OUT.tokenizer.json) or all")
      ->check(CLI::IsMember({"tiktoken", "hf", "all"}));
  sub->add_option(
      "--save-counts", a->save_counts,
      "Write the word-count table to FILE (- for stdout; mergeable, see --from-counts)");
  sub->add_option("--from-counts", a->from_counts,
                  "Train from word-count tables (summed) instead of text")
      ->expected(1, -1);
  sub->add_flag("-q,--quiet", a->quiet, "No progress or summary on stderr");
  sub->add_option("--jsonl", a->jsonl,
                  "Read the inputs as JSON Lines: each line's FIELD (a dotted path such as "
                  "meta.text) is one document");
  sub->add_flag(
      "--skip-bad", a->skip_bad,
      "With --jsonl: skip lines that are not JSON or lack a string FIELD, and count them");
  commands.add(sub, [a] { return run_train(*a); });
}

}  // namespace tok::cli
