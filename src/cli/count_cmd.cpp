// tok count [-m MODEL]... [-e ENC] [--chat FILE | --batch FILE] [FILE|DIR|-]... [-t TEXT]...
// Token counts per file (directories walked, .gitignore honoured), and with
// -m the cost, context-window share and (--kv) KV-cache size per model.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>

#include "cli/command.hpp"
#include "cli/count_model.hpp"
#include "cli/encoding_options.hpp"
#include "cli/input.hpp"
#include "cli/numeric_options.hpp"
#include "cli/text_inputs.hpp"
#include "cli/walk_options.hpp"
#include "core/mapped_file.hpp"
#include "core/system_cpus.hpp"
#include "core/thread_pool.hpp"
#include "cost/tokenizer_set.hpp"
#include "io/file_walk.hpp"
#include "io/small_file.hpp"
#include "io/stream_count.hpp"

namespace tok::cli {

// count_chat.cpp: --chat and --batch inputs.
Status count_chat_file(const std::string& path, CountReport& r);
Status count_batch_file(const std::string& path, CountReport& r);
// count_jsonl.cpp: --jsonl FIELD inputs.
Status count_jsonl_files(const std::string& field, bool skip_bad,
                         const std::vector<std::string>& inputs, bpe::SpecialMode mode,
                         unsigned threads, CountReport& r);

namespace {

constexpr int kExitBudget = 3;
constexpr std::size_t kLargeFile = 4u << 20;  // counted alone, with all threads

struct CountArgs {
  EncodingOptions enc;
  std::vector<std::string> encodings;  // -e, repeatable; empty: enc.encoding
  TextInputs in;
  std::vector<std::string> models, model_files;
  WalkFlags walk;
  std::string chat, batch, jsonl;
  bool skip_bad = false;
  unsigned threads = 0;
  bool quiet = false, json = false, csv = false, kv = false, total = false;
  bool verbose = false;
  bool batch_rates = false, no_batch_rates = false;
  std::uint64_t output_tokens = 0, cached_tokens = 0;
  std::optional<std::uint64_t> budget;  // unset: no budget (0 is a budget of nothing)
  std::size_t top = 0;
};

Status build_columns(const CountArgs& a, cost::Catalog& catalog, cost::TokenizerSet& set,
                     CountReport& r) {
  std::vector<const bpe::Tokenizer*> distinct;
  // Open-weight vocabularies bring their own chat template (exact counts);
  // OpenAI's models keep OpenAI's published per-message rule.
  auto add = [&](std::string label, const cost::ModelInfo* m, const bpe::Tokenizer* tk,
                 const std::string& family, const std::string& spec) -> Status {
    bool own_rule = m && family.starts_with("openai");
    TOK_ASSIGN(cost::ChatRules rules, a.chat.empty() && a.batch.empty() ? cost::chat_rules(family)
                                      : own_rule                        ? cost::chat_rules(family)
                                                 : cost::chat_rules_with_template(family, spec));
    auto it = std::find(distinct.begin(), distinct.end(), tk);
    if (it == distinct.end()) it = distinct.insert(distinct.end(), tk);
    r.columns.push_back({std::move(label), m, tk, std::size_t(it - distinct.begin()), rules});
    return {};
  };
  // A model's column always counts with the model's own tokenizer; each -e
  // (beside -m, or alone) adds a column of its own (counts only, no price).
  for (const auto& name : a.models) {
    TOK_ASSIGN(const cost::ModelInfo* m, catalog.get(name));
    TOK_ASSIGN(const bpe::Tokenizer* tk, set.get(*m));
    TOK_TRY(add(m->id, m, tk, m->chat, m->tokenizer));
  }
  std::vector<std::string> encodings = a.encodings;
  if (encodings.empty() && a.models.empty()) encodings.push_back(a.enc.encoding);
  for (const auto& spec : encodings) {
    TOK_ASSIGN(const bpe::Tokenizer* tk, set.get_encoding(spec));
    TOK_TRY(add(tk->name(), nullptr, tk, "openai", spec));
  }
  return {};
}

// What a worker keeps from one file to the next: a read buffer and, for each
// distinct tokenizer, its encoder scratch (caches stay warm across files).
struct WorkerState {
  std::string buf;
  std::vector<bpe::EncodeScratch> scratch;  // (distinct tokenizers)
};

// Counts one opened input into row.tokens for every distinct tokenizer; with a
// worker's state on one thread, else with `threads` inside the input.
Status count_bytes(std::string_view bytes, const CountReport& r, bpe::SpecialMode mode,
                   unsigned threads, WorkerState* ws, Row& row) {
  row.tokens.assign(r.columns.size(), 0);
  std::vector<std::int64_t> by_tk(r.columns.size(), -1);
  for (std::size_t c = 0; c < r.columns.size(); ++c) {
    std::size_t t = r.columns[c].tokenizer_index;
    if (by_tk[t] < 0) {
      const bpe::Tokenizer& tk = *r.columns[c].tokenizer;
      Result<std::size_t> n =
          ws ? tk.count(bytes, mode, ws->scratch[t]) : tk.count(bytes, mode, threads);
      TOK_TRY(n);
      by_tk[t] = static_cast<std::int64_t>(*n);
    }
    row.tokens[c] = static_cast<std::uint64_t>(by_tk[t]);
  }
  return {};
}

struct FileJob {
  std::string path;
  bool walked = false;  // found in a directory walk (binary files skipped)
};

// Result of one file: a row, an error, "skipped as binary", or "large: count
// it later with all threads".
struct FileOutcome {
  Row row;
  std::optional<Error> error;
  bool binary = false;
  bool deferred = false;
};

// Counts bytes already read into the outcome (binary check for walked files).
void count_into(std::string_view bytes, const FileJob& job, const CountReport& r,
                bpe::SpecialMode mode, unsigned threads, WorkerState* ws, FileOutcome& o) {
  if (job.walked && io::looks_binary(bytes)) {
    o.binary = true;
    return;
  }
  o.row.bytes = bytes.size();
  Status s = count_bytes(bytes, r, mode, threads, ws, o.row);
  if (!s.ok())
    o.error = make_error("{}: {}", job.path == "-" ? "<stdin>" : job.path, s.error().message);
}

// A stream (stdin, a named pipe): counted chunk by chunk as it arrives, in
// bounded memory, cut where every distinct tokenizer can be cut.
void count_stream_into(int fd, const std::string& name, const CountReport& r, bpe::SpecialMode mode,
                       unsigned threads, FileOutcome& o) {
  std::vector<const bpe::Tokenizer*> tks;
  for (const auto& c : r.columns) {
    if (c.tokenizer_index >= tks.size()) tks.resize(c.tokenizer_index + 1, nullptr);
    tks[c.tokenizer_index] = c.tokenizer;
  }
  auto sc = io::count_stream(fd, name, tks, mode, threads);
  if (!sc.ok()) {
    o.error = sc.error();
    return;
  }
  o.row.bytes = sc->bytes;
  o.row.tokens.clear();
  for (const auto& c : r.columns) o.row.tokens.push_back(sc->tokens[c.tokenizer_index]);
}

// With a worker's state (small files): reads the file into its buffer, or
// defers it when it is large. Without (large files, stdin): all threads.
FileOutcome count_one(const FileJob& job, const CountReport& r, bpe::SpecialMode mode,
                      unsigned threads, WorkerState* ws) {
  FileOutcome o;
  o.row.path = job.path;
  if (job.path == "-") {
    note_terminal_stdin();
    count_stream_into(0, "<stdin>", r, mode, threads, o);
    return o;
  }
  if (ws && job.path != "-") {
    int stream_fd = -1;
    io::SmallRead sr = io::read_small_file(job.path, kLargeFile, ws->buf, &stream_fd);
    if (sr == io::SmallRead::kStream) {
      count_stream_into(stream_fd, job.path, r, mode, threads, o);
      ::close(stream_fd);
      return o;
    }
    if (sr == io::SmallRead::kLarge) {
      o.deferred = true;
      return o;
    }
    if (sr == io::SmallRead::kRead) {
      count_into(ws->buf, job, r, mode, threads, ws, o);
      return o;
    }
    // kFailed: open it the general way, which reads streams and names errors.
  }
  // A named pipe, a device, <(process substitution): counted as it
  // arrives, like stdin.
  if (int fd = job.walked ? -1 : open_if_stream(job.path); fd >= 0) {
    count_stream_into(fd, job.path, r, mode, threads, o);
    ::close(fd);
    return o;
  }
  auto in = open_text_input(job.path);
  if (!in.ok()) {
    o.error = in.error();
    return o;
  }
  count_into(in->bytes(), job, r, mode, threads, ws, o);
  return o;
}

// The files to count, growing while the walk runs and workers take them. A
// deque keeps every job and outcome in place as it grows, so a worker fills
// its outcome without the lock.
class JobList {
 public:
  void add(FileJob job) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      jobs_.push_back(std::move(job));
      outcomes_.emplace_back();
    }
    ready_.notify_one();
  }
  void close() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      closed_ = true;
    }
    ready_.notify_all();
  }
  // After a worker failed: every take() returns false from now on.
  void cancel() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      cancelled_ = true;
    }
    ready_.notify_all();
  }
  // The next job and its outcome slot; false once the list is closed and
  // every job taken, or cancelled.
  bool take(const FileJob*& job, FileOutcome*& outcome) {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [&] { return next_ < jobs_.size() || closed_ || cancelled_; });
    if (cancelled_ || next_ >= jobs_.size()) return false;
    job = &jobs_[next_];
    outcome = &outcomes_[next_];
    ++next_;
    return true;
  }
  // After close() and the workers: every job with its outcome, in order.
  std::deque<FileJob>& jobs() { return jobs_; }
  std::deque<FileOutcome>& outcomes() { return outcomes_; }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<FileJob> jobs_;
  std::deque<FileOutcome> outcomes_;
  std::size_t next_ = 0;
  bool closed_ = false;
  bool cancelled_ = false;
};

// Small files in parallel as `produce` (the walk, on this thread) adds them,
// one per worker, each worker keeping its scratch; large ones afterwards one
// at a time with all threads inside the file. Outcomes keep the input order.
std::deque<FileOutcome> count_files(const std::function<void(JobList&)>& produce,
                                    const CountReport& r, bpe::SpecialMode mode, unsigned threads) {
  JobList list;
  std::size_t ntk = 0;
  for (const auto& c : r.columns) ntk = std::max(ntk, c.tokenizer_index + 1);
  // `threads` threads in all: worker 0 (this thread) walks, then counts
  // beside the others. More than the cap only adds threads that wait on each
  // other (a huge --threads still splits a large file into that many chunks,
  // below).
  unsigned hw = available_cpus();
  ThreadPool pool(std::min(std::max(1u, threads), std::max(64u, 4 * hw)));
  std::vector<WorkerState> states(pool.size());
  pool.run([&](unsigned w) {
    // A thread that throws (out of memory) cancels the list, so no other
    // waits for jobs; the pool rethrows the first error here.
    try {
      if (w == 0) {
        produce(list);
        list.close();
      }
      WorkerState& ws = states[w];
      ws.scratch.resize(ntk);
      const FileJob* job = nullptr;
      FileOutcome* out = nullptr;
      while (list.take(job, out)) {
        if (job->path == "-") {
          out->deferred = true;
        } else {
          *out = count_one(*job, r, mode, 1, &ws);
        }
      }
    } catch (...) {
      list.cancel();
      throw;
    }
  });
  auto& outcomes = list.outcomes();
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    if (outcomes[i].deferred) outcomes[i] = count_one(list.jobs()[i], r, mode, threads, nullptr);
  }
  return std::move(outcomes);
}

// --budget: every input (or the total, with --total) over budget, in one
// line: the input and its largest count over, or how many and the first few.
int check_budget(const CountArgs& a, const CountReport& r) {
  if (!a.budget) return 0;
  constexpr std::size_t kNamed = 5;
  // The column with the most tokens over the budget, or none.
  auto over = [&](const Row& row) -> std::optional<std::size_t> {
    std::optional<std::size_t> col;
    for (std::size_t c = 0; c < r.columns.size(); ++c) {
      if (row.tokens[c] > *a.budget && (!col || row.tokens[c] > row.tokens[*col])) col = c;
    }
    return col;
  };
  std::vector<std::pair<const Row*, std::size_t>> bad;
  if (a.total) {
    if (auto c = over(r.total)) bad.emplace_back(&r.total, *c);
  } else {
    for (const auto& row : r.rows) {
      if (auto c = over(row)) bad.emplace_back(&row, *c);
    }
  }
  if (bad.empty()) return 0;
  auto has = [&](const std::pair<const Row*, std::size_t>& b) {
    return fmt::format("{} has {} tokens ({})", b.first->path, b.first->tokens[b.second],
                       r.columns[b.second].label);
  };
  if (bad.size() == 1) {
    report(make_error("over budget: {}, more than --budget {}", has(bad[0]), *a.budget));
    return kExitBudget;
  }
  std::string list;
  for (std::size_t i = 0; i < std::min(bad.size(), kNamed); ++i)
    list += (i ? "; " : "") + has(bad[i]);
  if (bad.size() > kNamed) list += fmt::format("; and {} more", bad.size() - kNamed);
  report(make_error("over budget: {} of {} inputs have more than --budget {} tokens: {}",
                    bad.size(), r.rows.size(), *a.budget, list));
  return kExitBudget;
}

Status gather(const CountArgs& a, CountReport& r, int& status, unsigned threads) {
  if (!a.chat.empty()) return count_chat_file(a.chat, r);
  if (!a.batch.empty()) return count_batch_file(a.batch, r);
  if (!a.jsonl.empty()) {
    if (!a.in.texts.empty()) throw UsageError{"--jsonl reads files or stdin, not -t text"};
    return count_jsonl_files(a.jsonl, a.skip_bad, a.in.files, a.enc.special_mode(), threads, r);
  }
  if (a.skip_bad) throw UsageError{"--skip-bad needs --jsonl FIELD"};
  std::vector<std::string> inputs = a.in.files;
  if (a.in.empty()) inputs.push_back("-");
  io::WalkOptions wo = a.walk.options();
  std::vector<Error> walk_errors;
  auto produce = [&](JobList& list) {
    walk_errors = io::expand_inputs(inputs, wo, [&](std::string path, bool walked) {
      // A walked file also named on the command line counts as named.
      walked = walked && std::find(inputs.begin(), inputs.end(), path) == inputs.end();
      list.add({std::move(path), walked});
    });
  };
  std::deque<FileOutcome> outcomes = count_files(produce, r, a.enc.special_mode(), threads);
  for (const auto& e : walk_errors) status = report(e);
  for (auto& o : outcomes) {
    if (o.error) {
      status = report(*o.error);
    } else if (o.binary) {
      r.skipped.push_back(o.row.path);
    } else {
      r.rows.push_back(std::move(o.row));
    }
  }
  // -t texts: small by nature, counted here after the files, in order.
  for (std::size_t i = 0; i < a.in.texts.size(); ++i) {
    Row row;
    row.path = a.in.text_name(i);
    row.bytes = a.in.texts[i].size();
    Status s = count_bytes(a.in.texts[i], r, a.enc.special_mode(), threads, nullptr, row);
    if (!s.ok()) {
      status = report(make_error("{}: {}", row.path, s.error().message));
      continue;
    }
    r.rows.push_back(std::move(row));
  }
  return {};
}

int run_count(const CountArgs& a) {
  if (a.json + a.csv + a.quiet > 1) throw UsageError{"choose one of --json, --csv and -q"};
  if (!a.chat.empty() && !a.batch.empty()) throw UsageError{"choose one of --chat and --batch"};
  if (a.kv && a.models.empty()) throw UsageError{"--kv needs -m MODEL"};
  if (a.batch_rates && a.no_batch_rates)
    throw UsageError{"choose one of --batch-rates and --no-batch-rates"};
  if ((a.batch_rates || a.no_batch_rates) && a.models.empty()) {
    throw UsageError{"--batch-rates and --no-batch-rates need -m MODEL (they choose its prices)"};
  }
  // The catalog only when a model is asked for: a broken user catalog must
  // not stop plain counting.
  cost::Catalog catalog;
  if (!a.models.empty() || !a.model_files.empty()) {
    auto loaded = cost::Catalog::load_default(a.model_files);
    if (!loaded.ok()) return report(loaded.error());
    catalog = std::move(loaded).value();
  }
  cost::TokenizerSet set;
  CountReport r;
  if (Status s = build_columns(a, catalog, set, r); !s.ok()) return report(s.error());
  r.output_tokens = a.output_tokens;
  r.cached_tokens = a.cached_tokens;
  r.kv = a.kv;
  r.top = a.top;
  // A batch file goes through the Batch API: billed at batch rates unless
  // --no-batch-rates; --batch-rates bills any input so.
  r.per_request = !a.batch.empty();
  r.one_request = a.total;
  r.batch_rates = a.batch_rates || (r.per_request && !a.no_batch_rates);
  unsigned threads = a.threads ? a.threads : available_cpus();
  int status = 0;
  if (Status s = gather(a, r, status, threads); !s.ok()) return report(s.error());
  report_skipped_binary(r.skipped, a.verbose);
  // Every input failed (each error already said why): no table of nothing.
  if (r.rows.empty() && status != 0) return status;
  r.sum_rows();
  bool legacy = a.models.empty() && r.columns.size() == 1;
  if (a.quiet) {
    if (r.columns.size() > 1) {
      throw UsageError{"-q prints one number: pass a single -m MODEL or -e ENC"};
    }
    fmt::print("{}\n", r.total.tokens[0]);  // flushed and checked at exit (main.cpp)
  } else if (a.json) {
    print_json(r, legacy);
  } else if (a.csv) {
    print_csv(r);
  } else {
    print_table(r);
  }
  if (!a.models.empty()) warn_limits(r);
  // An input that failed outranks the budget: exit 1, not 3, so a gate
  // never reads an error as "over budget".
  int budget = check_budget(a, r);
  return status ? status : budget;
}

}  // namespace

void add_count(CLI::App& app, CommandTable& commands) {
  auto a = std::make_shared<CountArgs>();
  CLI::App* sub = app.add_subcommand(
      "count",
      "Count tokens of files, directories or stdin; with -m, cost and context fit per model");
  a->enc.add_encoding_list(sub, a->encodings);
  a->enc.add_special(sub, "text");
  a->in.add(sub, "Files or directories (walked recursively; default: stdin; '-' is stdin)");
  sub->add_option(
         "-m,--model", a->models,
         "Model from the catalog (repeatable; see `tok models`): adds cost and window share")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  sub->add_option("--models", a->model_files,
                  "Extra catalog JSON adding or overriding models (repeatable)")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  sub->add_option("--chat", a->chat,
                  "Count an OpenAI-style messages JSON with each model's chat overhead");
  sub->add_option("--batch", a->batch, "Count an OpenAI batch JSONL file: one request per line");
  sub->add_option(
      "--jsonl", a->jsonl,
      "Read the inputs as JSON Lines: count each line's FIELD (a dotted path such as meta.text)");
  sub->add_flag(
      "--skip-bad", a->skip_bad,
      "With --jsonl: skip lines that are not JSON or lack a string FIELD, and count them");
  sub->add_flag("--batch-rates", a->batch_rates,
                "Bill at the models' Batch API rates (the default for --batch files)");
  sub->add_flag("--no-batch-rates", a->no_batch_rates, "Bill a --batch file at the standard rates");
  sub->add_option(
         "--output-tokens", a->output_tokens,
         "Completion tokens to add to the cost and window share (with --batch: per request)")
      ->check(integer_in(0, kMaxTokenCount));
  sub->add_option("--cached-tokens", a->cached_tokens,
                  "Input tokens billed at the cached-input price (with --batch: per request)")
      ->check(integer_in(0, kMaxTokenCount));
  sub->add_option("--budget,--max-tokens", a->budget,
                  "Budget gate: exit 3 if any input (or the total, with --total) has more than N "
                  "tokens (--max-tokens: the old name, kept for one release)")
      ->check(integer_in(0, kMaxTokenCount));
  sub->add_flag("--total", a->total,
                "Treat every input as one request: --budget applies to the total, and with -m the "
                "total is priced as one prompt (default: each input one request, costs summed)");
  sub->add_option("--top", a->top, "Show only the N largest inputs (the total still covers all)")
      ->check(integer_in(0, kMaxTokenCount));
  a->walk.add(sub);
  sub->add_flag("--verbose", a->verbose,
                "List each binary file a directory walk skipped (default: one summary line)");
  sub->add_flag("--kv", a->kv,
                "KV-cache memory and attention FLOPs for open models at the total token count");
  sub->add_option("--threads", a->threads,
                  "Worker threads (default: the CPUs tok may use); never changes a count")
      ->check(integer_in(0, kMaxThreads));
  sub->add_flag("-q,--quiet", a->quiet, "Print only the total token count");
  sub->add_flag("--json", a->json,
                "Print JSON (schema in docs/cost.md; without -m: {encoding, files, total})");
  sub->add_flag("--csv", a->csv, "Print CSV: one line per input and model, then the totals");
  commands.add(sub, [a] { return run_count(*a); });
}

}  // namespace tok::cli
