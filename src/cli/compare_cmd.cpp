// tok compare [-e ENC]... [-m MODEL] [--baseline NAME] [CORPUS...]: token
// inflation of samples (languages, programming languages, data formats)
// across vocabularies. With no corpus, the shipped samples (vocab/samples,
// its code/ and data/) against r50k_base, cl100k_base and o200k_base.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "cli/command.hpp"
#include "cli/numeric_options.hpp"
#include "compare/corpus.hpp"
#include "compare/measure.hpp"
#include "compare/report.hpp"
#include "core/atomic_file.hpp"
#include "core/data_dir.hpp"
#include "core/output.hpp"
#include "core/system_cpus.hpp"
#include "cost/catalog.hpp"
#include "cost/tokenizer_set.hpp"

namespace tok::cli {
namespace {

struct CompareArgs {
  std::vector<std::string> encodings;
  std::vector<std::string> corpora;
  std::string baseline = "en";
  bool baseline_given = false;  // --baseline on the command line, not the default
  std::optional<std::string> model;
  std::vector<std::string> model_files;  // --models FILE
  std::optional<std::string> svg, html;
  bool csv = false, json = false, quiet = false;
  bool no_words = false, no_composition = false;
  unsigned threads = 0;
};

std::vector<std::string> default_corpora() {
  std::vector<std::string> out;
  std::string root = vocab_dir() + "/samples";
  for (const char* sub : {"", "/code", "/data"}) {
    std::error_code ec;
    if (std::filesystem::is_directory(root + sub, ec)) out.push_back(root + sub);
  }
  return out;
}

// Loads the vocabularies, plus the model's when -m names one not listed. The
// model is found exactly as `tok count -m` finds it (cost::Catalog: shipped,
// user and --models catalogs; the same suggestions and errors) and counts
// with the tokenizer count gives it; its column is the one with that
// tokenizer.
Status load_vocabularies(const CompareArgs& a, cost::TokenizerSet& set,
                         std::vector<const bpe::Tokenizer*>& tks,
                         std::vector<compare::VocabColumn>& cols) {
  std::vector<std::string> specs = a.encodings;
  if (specs.empty()) specs = {"r50k_base", "cl100k_base", "o200k_base"};
  const cost::ModelInfo* model = nullptr;
  const bpe::Tokenizer* model_tk = nullptr;
  // The catalog only when asked for, as count reads it: a broken user
  // catalog must not stop a plain compare.
  cost::Catalog catalog;
  if (a.model || !a.model_files.empty()) {
    TOK_ASSIGN(catalog, cost::Catalog::load_default(a.model_files));
  }
  if (a.model) {
    TOK_ASSIGN(model, catalog.get(*a.model));
    TOK_ASSIGN(model_tk, set.get(*model));
    if (model->estimate) {
      // In count's words.
      warn(
          fmt::format("{}: token counts are ESTIMATES: its tokenizer is not public; counted "
                      "with {} as a proxy",
                      model->id, model_tk->name()));
    }
  }
  auto add = [&](const std::string& spec, const bpe::Tokenizer* tk) {
    compare::VocabColumn col{
        tk->name().empty() ? spec : tk->name(), spec, tk->vocab_size(), {}, {}};
    for (const auto& c : cols) {
      if (c.label == col.label) col.label = spec;  // two files with one name
    }
    cols.push_back(col);
    tks.push_back(tk);
  };
  for (const auto& spec : specs) {
    TOK_ASSIGN(const bpe::Tokenizer* tk, set.get_encoding(spec));
    add(spec, tk);
  }
  if (!model) return {};
  auto it = std::find(tks.begin(), tks.end(), model_tk);
  if (it == tks.end()) {
    add(model->tokenizer, model_tk);
    it = tks.end() - 1;
  }
  compare::VocabColumn& col = cols[static_cast<std::size_t>(it - tks.begin())];
  col.model = model->id;
  col.price_per_mtok = model->price.input;
  return {};
}

// The chart of corpus c (0-based): FILE, FILE-2.svg, ... (one per corpus).
std::string svg_path(const std::string& svg, std::size_t c) {
  if (c == 0) return svg;
  std::filesystem::path p(svg);
  std::string name = p.stem().string() + "-" + std::to_string(c + 1) + p.extension().string();
  return (p.parent_path() / name).string();
}

// Before any work: no chart or page may replace a corpus file, a vocabulary
// or another output.
void refuse_overwrites(const CompareArgs& a, const std::vector<compare::Corpus>& corpora) {
  std::vector<std::string> inputs = a.encodings, outputs;
  for (const auto& c : corpora) {
    inputs.push_back(c.name);
    for (const auto& s : c.samples) inputs.push_back(s.text.path());
  }
  if (a.svg) {
    for (std::size_t c = 0; c < corpora.size(); ++c) outputs.push_back(svg_path(*a.svg, c));
  }
  if (a.html) outputs.push_back(*a.html);
  require_distinct_outputs(inputs, outputs);
}

// Every chart is written before any replaces its old version, then all are
// renamed together: an interrupted or failed run leaves the old set whole.
Status write_outputs(const CompareArgs& a, const compare::Report& rep) {
  std::vector<AtomicFile> files;
  auto add = [&](const std::string& path, const std::string& bytes) -> Status {
    TOK_ASSIGN(AtomicFile f, AtomicFile::create(path));
    TOK_TRY(f.write(bytes));
    files.push_back(std::move(f));
    return {};
  };
  if (a.svg) {
    for (std::size_t c = 0; c < rep.corpora.size(); ++c) {
      TOK_TRY(add(svg_path(*a.svg, c), compare::render_svg(rep, c)));
    }
  }
  if (a.html) TOK_TRY(add(*a.html, compare::render_html(rep)));
  return commit_together(files);
}

int run_compare(const CompareArgs& a) {
  if (a.csv && a.json) throw UsageError{"--csv and --json are exclusive"};
  std::vector<compare::VocabColumn> cols;
  cost::TokenizerSet set;
  std::vector<const bpe::Tokenizer*> ptrs;
  if (Status st = load_vocabularies(a, set, ptrs, cols); !st.ok()) return report(st.error());

  std::vector<std::string> paths = a.corpora.empty() ? default_corpora() : a.corpora;
  if (paths.empty()) {
    return report(make_error("{}/samples: no shipped samples found; name a corpus", vocab_dir()));
  }
  compare::MeasureOptions mo;
  mo.threads = a.threads ? a.threads : available_cpus();
  mo.words = !a.no_words;
  compare::Report rep;
  rep.vocabs = cols;
  rep.words = mo.words;
  std::vector<compare::Corpus> corpora;
  for (const auto& path : paths) {
    auto corpus = compare::load_corpus(path);
    if (!corpus.ok()) return report(corpus.error());
    if (a.corpora.empty()) {  // name the shipped samples as the docs do
      corpus->name = "vocab" + path.substr(vocab_dir().size());
    }
    corpora.push_back(std::move(*corpus));
  }
  refuse_overwrites(a, corpora);
  // A corpus without the default baseline (code, data formats) just gets no
  // premium; a --baseline that no corpus has is a typo, caught before the
  // measuring.
  if (a.baseline_given) {
    bool found = false;
    for (const auto& c : corpora) {
      for (const auto& s : c.samples) found = found || s.name == a.baseline;
    }
    if (!found) {
      std::string names;
      for (const auto& s : corpora.front().samples) names += (names.empty() ? "" : ", ") + s.name;
      return report(make_error("{}: no sample named '{}' for --baseline; its samples: {}",
                               corpora.front().name, a.baseline, names));
    }
  }
  for (const auto& corpus : corpora) {
    auto counts = compare::measure(corpus, ptrs, mo);
    if (!counts.ok()) return report(counts.error());
    rep.corpora.push_back(compare::build_table(corpus, *counts, cols, a.baseline, mo.words));
  }
  if (!a.no_composition) {
    for (const auto* t : ptrs) rep.composition.push_back(compare::compose(*t));
    rep.jaccard.assign(ptrs.size(), std::vector<double>(ptrs.size(), 1.0));
    for (std::size_t i = 0; i < ptrs.size(); ++i) {
      for (std::size_t j = i + 1; j < ptrs.size(); ++j) {
        rep.jaccard[i][j] = rep.jaccard[j][i] = compare::jaccard(*ptrs[i], *ptrs[j]);
      }
    }
  }
  if (Status st = write_outputs(a, rep); !st.ok()) return report(st.error());
  // -q leaves out the table (the charts and page are the output); JSON and
  // CSV asked for by name are printed all the same.
  if (a.quiet && !a.json && !a.csv) return 0;
  Output out;
  if (a.csv) {
    out.write(compare::render_csv(rep));
  } else if (a.json) {
    out.write(compare::render_json(rep));
  } else {
    const char* no_color = std::getenv("NO_COLOR");
    bool color = isatty(1) && !(no_color && *no_color);
    out.write(compare::render_table(rep, color));
  }
  out.flush();
  return 0;
}

}  // namespace

void add_compare(CLI::App& app, CommandTable& commands) {
  auto a = std::make_shared<CompareArgs>();
  CLI::App* sub = app.add_subcommand(
      "compare", "Token inflation of languages, code and data formats across vocabularies");
  sub->add_option("-e,--encoding", a->encodings,
                  "Vocabulary to compare (repeatable; anything -e accepts). Default: r50k_base, "
                  "cl100k_base, o200k_base")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  sub->add_option("CORPUS", a->corpora,
                  "A directory (one sample per file, named by its stem) or a parallel TSV "
                  "(header row of language codes). Default: the shipped vocab/samples, its "
                  "code/ and data/");
  sub->add_option("--baseline", a->baseline,
                  "Sample the premium is relative to (tokens / its tokens); an error if no "
                  "corpus has it")
      ->capture_default_str()
      ->each([a](const std::string&) { a->baseline_given = true; });
  sub->add_option("-m,--model", a->model,
                  "Add the cost per 1,000 words at this catalog model's input price (see `tok "
                  "models`); its tokenizer is added if not compared already");
  sub->add_option("--models", a->model_files,
                  "Extra catalog JSON adding or overriding models (repeatable)")
      ->allow_extra_args(false);
  sub->add_flag("--csv", a->csv, "Print CSV: one row per corpus x sample x vocabulary");
  sub->add_flag("--json", a->json, "Print the whole report as JSON");
  sub->add_option("--svg", a->svg,
                  "Write a bar chart of premiums (one per corpus: FILE, then FILE-2.svg, ...)");
  sub->add_option("--html", a->html, "Write a self-contained HTML report");
  sub->add_flag("-q,--quiet", a->quiet,
                "Print no table (with --svg/--html); --json and --csv still print");
  sub->add_flag("--no-words", a->no_words,
                "Skip ICU segmentation (characters, words, fertility, continued words): tokens "
                "and bytes only, at full counting speed");
  sub->add_flag("--no-composition", a->no_composition,
                "Skip the vocabulary composition and overlap tables");
  sub->add_option("--threads", a->threads, "Worker threads (default: the CPUs tok may use)")
      ->check(integer_in(0, kMaxThreads));
  commands.add(sub, [a] { return run_compare(*a); });
}

}  // namespace tok::cli
