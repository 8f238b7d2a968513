#include "cli/encode_jsonl.hpp"
#include "cli/numeric_options.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <bit>
#include <charconv>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "cli/command.hpp"
#include "cli/ids_format.hpp"
#include "cli/progress_bar.hpp"
#include "core/atomic_file.hpp"
#include "core/first_error.hpp"
#include "core/huge_pages.hpp"
#include "core/number_format.hpp"
#include "core/output.hpp"
#include "core/system_cpus.hpp"
#include "core/thread_pool.hpp"
#include "io/jsonl_documents.hpp"

namespace tok::cli {
namespace {

enum class Format { kText, kU16, kU32, kNpy };

// One slot's share of a batch: ids of its documents back to back.
struct SlotIds {
  std::vector<bpe::TokenId> ids;          // (tokens of the slot's documents)
  std::vector<std::uint64_t> doc_tokens;  // (documents) tokens of each
};

struct EncodeSlot {
  SlotIds out;
  std::uint64_t special_text = 0;  // documents quoting a special token, encoded as text
  bpe::EncodeScratch scratch;
};

// Room for a slot's share of a batch of about `block` bytes of text split
// `slots` ways: at most as many ids (and a few per document), so the vector
// is never grown (copied and faulted in page by page) on the way.
void reserve_share(SlotIds& s, std::size_t block, std::size_t slots) {
  s.ids.reserve(block / slots + (std::size_t{1} << 16));
  advise_huge_pages(s.ids.data(), s.ids.capacity() * sizeof(bpe::TokenId));
}

// The end-of-text id: --eot-id (an id of the vocabulary, so it also fits
// any format the vocabulary fits), else the vocabulary's <|endoftext|> (or
// <|end_of_text|>), else its EOS.
Result<bpe::TokenId> find_eot(const JsonlEncodeOptions& o, const bpe::Tokenizer& tk) {
  if (o.eot_id) {
    if (*o.eot_id >= tk.vocab_size()) {
      return make_error("--eot-id {}: not an id of {}, whose ids are 0..{}", *o.eot_id, tk.name(),
                        tk.vocab_size() - 1);
    }
    return *o.eot_id;
  }
  for (const char* name : {"<|endoftext|>", "<|end_of_text|>"}) {
    for (const auto& s : tk.specials()) {
      if (s.text == name) return s.id;
    }
  }
  if (tk.eos) return *tk.eos;
  return make_error("--eot: {} has no end-of-text token; choose one with --eot-id N", tk.name());
}

Format choose_format(const JsonlEncodeOptions& o) {
  std::string f = ids_format(o.format, o.output);
  if (f == "u16") return Format::kU16;
  if (f == "u32") return Format::kU32;
  if (f == "npy") return Format::kNpy;
  return Format::kText;
}

// NumPy format 1.0: magic, version, header length, then a Python dict padded
// with spaces to a fixed 128 bytes, so the length written at the end fits
// in the place the first header took.
std::string npy_header(bool u16, std::uint64_t n) {
  constexpr std::size_t kTotal = 128;
  std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({},), }}",
                                 u16 ? "<u2" : "<u4", n);
  std::string h("\x93NUMPY\x01\x00", 8);
  const std::size_t len = kTotal - 10;
  h.push_back(static_cast<char>(len & 0xff));
  h.push_back(static_cast<char>(len >> 8));
  dict.resize(len - 1, ' ');
  return h + dict + "\n";
}

// Where ids go: stdout, or an output file made atomically.
class Sink {
 public:
  static Result<std::unique_ptr<Sink>> open(const std::string& path) {
    auto s = std::unique_ptr<Sink>(new Sink);
    if (!path.empty() && path != "-") {
      TOK_ASSIGN(AtomicFile f, AtomicFile::create(path));
      s->file_.emplace(std::move(f));
    }
    return s;
  }
  Status write(std::string_view b) {
    if (file_) return file_->write(b);
    out_.write(b);
    return {};
  }
  Status write_at(std::uint64_t off, std::string_view b) { return file_->write_at(off, b); }
  bool seekable() const { return file_ && file_->seekable(); }
  const std::string& path() const { return file_->path(); }
  // Flushes stdout, or hands the file over to be committed.
  std::optional<AtomicFile> release() {
    out_.flush();
    std::optional<AtomicFile> f = std::move(file_);
    file_.reset();
    return f;
  }

 private:
  Sink() = default;
  std::optional<AtomicFile> file_;
  Output out_;
};

struct Run {
  const JsonlEncodeOptions& o;
  const EncodingOptions& enc;
  const bpe::Tokenizer& tk;
  Format format;
  std::optional<bpe::TokenId> eot;
  std::unique_ptr<Sink> ids, index;
  std::uint64_t tokens = 0;
  std::uint64_t special_text = 0;            // documents quoting a special token, as text
  std::atomic<std::uint64_t> bytes_read{0};  // input bytes done, for the progress bar
  std::string bytes;                         // reused conversion buffer

  Status encode(EncodeSlot& s, std::string_view text) const {
    std::vector<bpe::TokenId>& ids = s.out.ids;
    std::size_t before = ids.size();
    if (enc.add_edge_tokens && tk.add_bos && tk.bos) ids.push_back(*tk.bos);
    Status st = tk.encode(text, enc.special_mode(), ids, s.scratch);
    if (!st.ok()) {
      ids.resize(before);
      return st;
    }
    if (enc.add_edge_tokens && tk.add_eos && tk.eos) ids.push_back(*tk.eos);
    if (eot) ids.push_back(*eot);
    s.out.doc_tokens.push_back(ids.size() - before);
    // Counted for the summary: such a document is encoded as text (the
    // --jsonl default), which a user who meant the token should hear of.
    if (enc.special_mode() == bpe::SpecialMode::kText &&
        tk.find_special(text, 0, bpe::Tokenizer::Match::kRefusable).first !=
            std::string_view::npos) {
      ++s.special_text;
    }
    return {};
  }

  // Writes a batch's ids (and index entries) in slot order and empties the
  // slots' vectors, keeping their room.
  Status write(std::vector<SlotIds>& slots) {
    for (SlotIds& s : slots) {
      if (format == Format::kText) {
        // One line per document, ids separated by spaces.
        bytes.clear();
        std::size_t k = 0;
        char num[16];
        for (std::uint64_t n : s.doc_tokens) {
          for (std::uint64_t j = 0; j < n; ++j, ++k) {
            if (j) bytes.push_back(' ');
            bytes.append(num, std::to_chars(num, num + sizeof num, s.ids[k]).ptr);
          }
          bytes.push_back('\n');
        }
        TOK_TRY(ids->write(bytes));
      } else if (format == Format::kU16) {
        bytes.resize(s.ids.size() * 2);
        for (std::size_t i = 0; i < s.ids.size(); ++i) {
          bytes[2 * i] = static_cast<char>(s.ids[i] & 0xff);
          bytes[2 * i + 1] = static_cast<char>(s.ids[i] >> 8);
        }
        TOK_TRY(ids->write(bytes));
      } else {
        static_assert(std::endian::native == std::endian::little,
                      "u32 output assumes a little-endian host");
        TOK_TRY(ids->write({reinterpret_cast<const char*>(s.ids.data()), s.ids.size() * 4}));
      }
      if (index) {
        bytes.resize(s.doc_tokens.size() * 8);
        for (std::size_t i = 0; i < s.doc_tokens.size(); ++i) {
          std::memcpy(bytes.data() + 8 * i, &tokens, 8);
          tokens += s.doc_tokens[i];
        }
        TOK_TRY(index->write(bytes));
      } else {
        tokens += s.ids.size();
      }
      s.ids.clear();
      s.doc_tokens.clear();
    }
    return {};
  }
};

// Writes batches on a thread of its own while the next batch is encoded:
// written by the thread that read the batches, between them, the ids of a
// batch (8 MB for a batch of 8 MiB of text) kept every encoding thread
// waiting. One batch is in hand at a time. serve() is the writing thread's
// loop (worker 1 of a ThreadPool beside the reading thread); an error or an
// exception it meets (a closed pipe, no memory) comes back on the reading
// thread, from the next take() or from finish(). Where that thread did not
// start, batches are written in take() as before.
class BatchWriter {
 public:
  BatchWriter(Run& run, std::size_t slots, std::size_t block, bool served)
      : run_(run), batch_(slots), served_(served) {
    for (SlotIds& s : batch_) reserve_share(s, block, slots);
  }

  // Takes the slots' ids once the batch before is written, leaving them the
  // emptied vectors of that batch.
  Status take(std::vector<EncodeSlot>& slots) {
    TOK_TRY(wait());
    for (std::size_t t = 0; t < slots.size(); ++t) std::swap(slots[t].out, batch_[t]);
    if (!served_) return run_.write(batch_);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      pending_ = true;
    }
    changed_.notify_all();
    return {};
  }
  // No batch comes after this: serve() returns once the one in hand is
  // written. Called by the reading thread however it ends, so the writing
  // thread never waits for ever.
  void close() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      closed_ = true;
    }
    changed_.notify_all();
  }
  // After serve() has returned: the last batch's error, if any.
  Status finish() { return wait(); }

  void serve() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      changed_.wait(lock, [this] { return pending_ || closed_; });
      if (!pending_) return;
      lock.unlock();
      Status s;
      failure_.run([&] { s = run_.write(batch_); });
      lock.lock();
      if (!s.ok()) error_ = s;
      pending_ = false;
      changed_.notify_all();
    }
  }

 private:
  Status wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [this] { return !pending_; });
    failure_.rethrow();
    return error_;
  }

  Run& run_;
  std::vector<SlotIds> batch_;  // the batch being written, then its emptied vectors
  const bool served_;           // a writing thread runs serve()
  std::mutex mutex_;
  std::condition_variable changed_;
  bool pending_ = false, closed_ = false;
  Status error_;        // the first write error; no batch is taken after it
  FirstError failure_;  // an exception the writing threw, for the reading thread
};

Status check_width(const Run& r) {
  const std::uint64_t limit = r.tk.vocab_size();  // the --eot id is one of them
  const bool u16 = r.format == Format::kU16;
  if (u16 && limit > 65536) {
    return make_error(
        "--format u16: {} has {} ids, more than 65,536 (u16 holds ids 0..65535); use u32",
        r.tk.name(), limit);
  }
  return {};
}

// The input's size for the progress bar: 0 (unknown) when one is a stream.
std::uint64_t total_input_bytes(const std::vector<std::string>& paths) {
  std::uint64_t total = 0;
  for (const auto& p : paths) {
    struct stat st {};
    if (p == "-" || ::stat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return 0;
    total += static_cast<std::uint64_t>(st.st_size);
  }
  return total;
}

Status encode_all(Run& r, const std::vector<std::string>& paths, unsigned threads,
                  io::JsonlStats& stats) {
  TOK_ASSIGN(io::JsonlField field, io::parse_jsonl_field(r.o.field));
  TOK_ASSIGN(r.ids, Sink::open(r.o.output));
  if (!r.o.index.empty()) {
    TOK_ASSIGN(r.index, Sink::open(r.o.index));
  }
  const bool npy = r.format == Format::kNpy;
  if (npy && !r.ids->seekable()) {
    // Said before any work: the header, written last, holds the length.
    return make_error(
        "{}: --format npy needs a file tok can seek in (its header holds the length, "
        "known at the end); for a pipe use --format u16 or u32",
        r.ids->path());
  }
  const bool npy_u16 = npy && r.tk.vocab_size() <= 65536 && (!r.eot || *r.eot < 65536);
  if (npy) {
    TOK_TRY(r.ids->write(npy_header(npy_u16, 0)));
    if (npy_u16) r.format = Format::kU16;
  }
  const std::uint64_t total = total_input_bytes(paths);
  std::vector<EncodeSlot> slots(threads);
  for (EncodeSlot& s : slots) {
    // Sized once, as plain encode sizes its scratch and ids for a file:
    // grown on the way, the encoder's caches were emptied or rehashed at
    // every doubling, and the ids' vector copied and faulted in page by
    // page (with the reader's read(2) buffer, 13,800 page faults on
    // scripts/bench/jsonl's corpus against plain encode's 3,000; with the
    // file mapped and this, 3,300).
    s.scratch.expect_bytes(total ? total / threads : io::kJsonlBlock);
    reserve_share(s.out, io::kJsonlBlock, threads);
  }
  {
    // A bar only where a run can be long: a stream, or inputs of 16 MB or more.
    ProgressBar bar(
        "encoding", total, ProgressBar::Unit::kBytes, [&r] { return r.bytes_read.load(); },
        !r.o.quiet && (total == 0 || total >= (std::uint64_t{16} << 20)));
    // Worker 0 (this thread) reads and encodes, worker 1 writes.
    ThreadPool pool(2);
    BatchWriter writer(r, slots.size(), io::kJsonlBlock, pool.size() > 1);
    Status read;
    pool.run([&](unsigned w) {
      if (w == 1) return writer.serve();
      struct Closer {
        BatchWriter& w;
        ~Closer() { w.close(); }
      } closer{writer};
      read = io::for_each_document(
          paths, field, r.o.skip_bad, slots,
          [&r](EncodeSlot& s, std::string_view text) { return r.encode(s, text); },
          [&r, &stats, &writer](std::vector<EncodeSlot>& s) {
            r.bytes_read.store(stats.input_bytes);
            for (EncodeSlot& slot : s) {
              r.special_text += slot.special_text;
              slot.special_text = 0;
            }
            return writer.take(s);
          },
          stats);
    });
    // A batch's write error comes before a later batch's bad line.
    TOK_TRY(writer.finish());
    TOK_TRY(std::move(read));
  }
  if (npy) TOK_TRY(r.ids->write_at(0, npy_header(npy_u16, r.tokens)));
  if (r.index) TOK_TRY(r.index->write({reinterpret_cast<const char*>(&r.tokens), 8}));
  // The ids and their index are synced before either is renamed: a failure
  // or a signal leaves both old files or both new ones.
  std::vector<AtomicFile> files;
  files.reserve(2);
  for (Sink* s : {r.ids.get(), r.index.get()}) {
    if (!s) continue;
    if (std::optional<AtomicFile> f = s->release()) files.push_back(std::move(*f));
  }
  TOK_TRY(commit_together(files));
  if (stats.bad) {
    warn(fmt::format("skipped {} bad line{} (first: {})", stats.bad, stats.bad == 1 ? "" : "s",
                     stats.first_bad));
  }
  return {};
}

double ms_between(std::chrono::steady_clock::time_point a,
                  std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// After a run: --stats' JSON line (the keys of plain `encode --stats`, and
// the dataset's counts), else one summary line unless -q.
void report_run(const Run& r, const io::JsonlStats& stats, double load_ms, double encode_ms,
                unsigned threads) {
  const double mb_per_s =
      encode_ms > 0 ? static_cast<double>(stats.input_bytes) / 1e3 / encode_ms : 0.0;
  if (r.o.stats) {
    auto two = [](double x) { return std::round(x * 100) / 100; };
    nlohmann::ordered_json j{{"encoding", r.tk.name()},
                             {"bytes", stats.input_bytes},
                             {"documents", stats.documents},
                             {"tokens", r.tokens},
                             {"skipped", stats.bad},
                             {"special_as_text", r.special_text},
                             {"text_bytes", stats.text_bytes},
                             {"load_ms", two(load_ms)},
                             {"encode_ms", two(encode_ms)},
                             {"encode_mb_per_s", two(mb_per_s)},
                             {"threads", threads}};
    std::fprintf(stderr, "%s\n",
                 j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return;
  }
  if (r.o.quiet) return;
  std::string quoted;
  if (r.special_text) {
    quoted =
        fmt::format(", {} quoting special tokens (encoded as text; --special error refuses them)",
                    r.special_text);
  }
  std::fprintf(stderr, "tok: encode: %s\n",
               fmt::format("{} documents, {} tokens, {} skipped{}; {} in {:.2f} s ({:.1f} MB/s)",
                           stats.documents, r.tokens, stats.bad, quoted,
                           human_bytes(stats.input_bytes), encode_ms / 1e3, mb_per_s)
                   .c_str());
}

}  // namespace

void JsonlEncodeOptions::add(CLI::App* sub) {
  sub->add_option(
      "--jsonl", field,
      "Read JSON Lines: each line's FIELD (a dotted path such as meta.text) is one document");
  sub->add_flag("--eot", eot,
                "With --jsonl: the vocabulary's end-of-text token after each document");
  sub->add_option("--eot-id", eot_id, "With --jsonl: this id after each document (implies --eot)")
      ->check(integer_in(0, max_of<std::uint32_t>() - 1));
  sub->add_option("--format", format,
                  "With --jsonl: text (one line per document), u16, u32 (little-endian) or npy "
                  "(default: from -o's suffix .u16, .u32, .npy or .txt; .bin needs --format; u32 "
                  "for another name, text on stdout)")
      ->check(CLI::IsMember({"text", "u16", "u32", "npy"}));
  sub->add_option("-o,--output", output, "With --jsonl: write the ids to FILE (atomically)");
  sub->add_option("--index", index,
                  "With --jsonl: write each document's start offset in tokens, then the total, "
                  "as u64 little-endian, to FILE");
  sub->add_flag(
      "--skip-bad", skip_bad,
      "With --jsonl: skip lines that are not JSON or lack a string FIELD, and count them");
  sub->add_flag("-q,--quiet", quiet, "With --jsonl: no summary line or progress bar on stderr");
  sub->add_option(
         "--threads", threads,
         "Encoding threads (default: the CPUs tok may use); a large file is cut at guaranteed "
         "piece boundaries, so the output never depends on it")
      ->check(integer_in(0, kMaxThreads));
}

void JsonlEncodeOptions::check_unused() const {
  if (eot || eot_id || !format.empty() || !output.empty() || !index.empty() || skip_bad || quiet) {
    throw UsageError{
        "--eot, --eot-id, --format, -o, --index, --skip-bad and -q need --jsonl FIELD"};
  }
}

int run_encode_jsonl(const JsonlEncodeOptions& o, const EncodingOptions& enc, const TextInputs& in,
                     bool other_output) {
  if (other_output) throw UsageError{"--json and --tokens do not apply to --jsonl (use --format)"};
  if (!in.texts.empty()) throw UsageError{"--jsonl reads files or stdin, not -t text"};
  Format format = choose_format(o);
  if (format == Format::kNpy && (o.output.empty() || o.output == "-")) {
    throw UsageError{"--format npy needs -o FILE (its header is written last)"};
  }
  if (format != Format::kText && (o.output.empty() || o.output == "-") && ::isatty(1)) {
    throw UsageError{"binary ids would go to the terminal; give -o FILE or redirect stdout"};
  }
  std::vector<std::string> paths = in.files;
  if (paths.empty()) paths.push_back("-");
  std::vector<std::string> inputs = paths;
  inputs.push_back(enc.encoding);
  require_distinct_outputs(inputs, {o.output, o.index});
  auto t_load = std::chrono::steady_clock::now();
  auto tk = enc.load();
  if (!tk.ok()) return report(tk.error());
  const double load_ms = ms_between(t_load, std::chrono::steady_clock::now());
  Run r{o, enc, *tk, format, std::nullopt, nullptr, nullptr, 0, 0, {0}, {}};
  if (o.eot || o.eot_id) {
    auto id = find_eot(o, *tk);
    if (!id.ok()) return report(id.error());
    r.eot = *id;
  }
  if (Status s = check_width(r); !s.ok()) return report(s.error());
  unsigned threads = o.threads ? o.threads : available_cpus();
  io::JsonlStats stats;
  auto t_encode = std::chrono::steady_clock::now();
  if (Status s = encode_all(r, paths, threads, stats); !s.ok()) return report(s.error());
  report_run(r, stats, load_ms, ms_between(t_encode, std::chrono::steady_clock::now()), threads);
  return 0;
}

}  // namespace tok::cli
