// tok encode [-e ENC] [--special MODE] [--json|--tokens] [--threads N] [FILE]... [-t TEXT]...:
// token ids of each input, one line per input: a file (mapped, in chunks; a
// large one on N threads, in order), a stream (a pipe, stdin, a device: as
// it arrives) or a literal -t text.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <functional>
#include <span>
#include <vector>

#include <nlohmann/json.hpp>

#include "bpe/ordered_encode.hpp"
#include "cli/command.hpp"
#include "cli/encode_jsonl.hpp"
#include "cli/encoding_options.hpp"
#include "cli/input.hpp"
#include "cli/text_inputs.hpp"
#include "core/huge_pages.hpp"
#include "core/id_text.hpp"
#include "core/output.hpp"
#include "core/system_cpus.hpp"
#include "io/stream_chunks.hpp"
#include "text/escape.hpp"

namespace tok::cli {
namespace {

struct EncodeArgs {
  EncodingOptions enc;
  TextInputs in;
  bool json = false;
  bool tokens = false;
  bool stats = false;
  bool special_given = false;  // --special or --allow-special on the command line
  JsonlEncodeOptions jsonl;
};

// --jsonl encodes a document quoting a special token as text unless told
// otherwise, as nanoGPT (encode_ordinary), Megatron and datasets.map with
// tiktoken do: refusing a whole dataset for one quoted <|endoftext|> is not
// what its users expect. Plain encode keeps tiktoken's refusal.
int run_encode_jsonl_args(const EncodeArgs& a) {
  EncodingOptions enc = a.enc;
  if (!a.special_given) enc.special = "text";
  JsonlEncodeOptions jsonl = a.jsonl;
  jsonl.stats = a.stats;
  return run_encode_jsonl(jsonl, enc, a.in, a.json || a.tokens);
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// CPU time of this process in ms: on a loaded machine the encode call's own
// cost (all threads' with --threads; only encoding runs meanwhile).
double cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

// Prints the tokens of consecutive chunks of one input, as they are encoded.
class EncodeWriter {
 public:
  EncodeWriter(const EncodeArgs& a, const bpe::Tokenizer& tk, std::string name)
      : a_(a), tk_(tk), name_(std::move(name)), id_text_(a.json ? ',' : ' ', tk.vocab_size()) {}

  // Room for a chunk of `bytes` bytes' ids up front (at most one per byte;
  // pages are only touched as ids fill them): grown by doubling, the vector
  // copied itself into fresh memory again and again, and fresh pages are
  // costly. A big one is advised for huge pages: the ids of a 4 MiB chunk
  // fill about 1,000 pages of 4 KiB, whose faults measured 7% of the encode
  // call on a 25 MB file.
  void reserve(std::size_t bytes) {
    ids_.reserve(bytes + 2);
    if (bytes >= (std::size_t{4} << 20)) {
      advise_huge_pages(ids_.data(), ids_.capacity() * sizeof(bpe::TokenId));
    }
  }

  // Sizes the encoder's caches once for an input of `bytes` bytes that is
  // then encoded in chunks: sized by each 4 MiB chunk instead, the piece
  // cache of a 25 MB file doubled and rehashed three times on the way, about
  // 6% of a one-thread `tok encode`.
  void expect_input(std::size_t bytes) { scratch_.expect_bytes(bytes); }

  // The tokens of `text`, which starts at byte `base` of the input.
  Status chunk(std::string_view text, std::uint64_t base, bpe::SpecialMode mode) {
    bytes_ += text.size();
    if (a_.tokens) {
      spans_.clear();
      auto st = tk_.encode_spans(text, mode, spans_, scratch_);
      if (!st.ok()) return make_error("{}: {}", name_, st.error().message);
      for (const auto& s : spans_) {
        out_.write_u64(s.id);
        out_.put('\t');
        out_.write_u64(base + s.begin);
        out_.write("\t\"");
        out_.write(escape_bytes(tk_.token_bytes(s.id)));
        out_.write("\"\n");
      }
      return {};
    }
    ids_.clear();
    auto t0 = std::chrono::steady_clock::now();
    double c0 = cpu_ms();
    auto st = tk_.encode(text, mode, ids_, scratch_);
    encode_cpu_ms_ += cpu_ms() - c0;
    encode_ms_ += ms_since(t0);
    if (!st.ok()) return make_error("{}: {}", name_, st.error().message);
    print(ids_);
    return {};
  }

  // The whole text cut at `cuts`, encoded on `threads` threads, printed in
  // order as the chunks finish. The stats' encode time is then that of
  // encoding and printing together (they overlap).
  Status chunks_in_order(std::string_view text, const std::vector<std::size_t>& cuts,
                         bpe::SpecialMode mode, unsigned threads,
                         const std::function<Status()>& first) {
    bytes_ += text.size();
    threads_ = threads;
    auto t0 = std::chrono::steady_clock::now();
    double c0 = cpu_ms();
    Status st = bpe::encode_in_order(
        tk_, text, cuts, mode, threads,
        [&](std::size_t, std::span<const bpe::TokenId> ids) {
          print(ids);
          return Status{};
        },
        first);
    encode_cpu_ms_ += cpu_ms() - c0;
    encode_ms_ += ms_since(t0);
    if (!st.ok()) return make_error("{}: {}", name_, st.error().message);
    return {};
  }

  // After an error: what was printed ends its line (a JSON array stays
  // open, so that it is not taken for the whole text's).
  void abandon() {
    if (!begun_) return;  // nothing printed: nothing to end
    if (!first_ || a_.json) out_.put('\n');
    out_.flush();
  }

  void print(std::span<const bpe::TokenId> ids) {
    begin();
    ntokens_ += ids.size();
    std::size_t k = 0;
    if (first_ && !ids.empty()) emit(ids[k++]);
    for (; k < ids.size(); ++k) id_text_.put(out_, ids[k]);
  }

  void finish(double load_ms) {
    begin();
    if (!a_.tokens) {
      if (a_.enc.add_edge_tokens && tk_.add_eos && tk_.eos) emit(*tk_.eos);
      if (a_.json) out_.put(']');
      out_.put('\n');
    }
    out_.flush();
    if (a_.stats && !a_.tokens) {
      std::fprintf(stderr,
                   "{\"encoding\":%s,\"bytes\":%llu,\"tokens\":%zu,\"load_ms\":%.2f,"
                   "\"encode_ms\":%.2f,\"encode_cpu_ms\":%.2f,\"encode_mb_per_s\":%.2f,"
                   "\"threads\":%u}\n",
                   text::escape_json_controls(
                       nlohmann::json(tk_.name())
                           .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
                       .c_str(),
                   static_cast<unsigned long long>(bytes_), ntokens_, load_ms, encode_ms_,
                   encode_cpu_ms_,
                   encode_ms_ > 0 ? static_cast<double>(bytes_) / 1e3 / encode_ms_ : 0.0, threads_);
    }
  }

 private:
  // The line's start: written with the first tokens, not before, so that an
  // input refused before them leaves no output at all.
  void begin() {
    if (begun_) return;
    begun_ = true;
    if (a_.tokens) return;
    if (a_.json) out_.put('[');
    if (a_.enc.add_edge_tokens && tk_.add_bos && tk_.bos) emit(*tk_.bos);
  }
  void emit(bpe::TokenId id) {
    if (first_) {
      out_.write_u64(id);
      first_ = false;
    } else {
      id_text_.put(out_, id);
    }
  }

  const EncodeArgs& a_;
  const bpe::Tokenizer& tk_;
  std::string name_;
  Output out_;
  IdText id_text_;
  bool begun_ = false;
  bool first_ = true;
  std::vector<bpe::TokenId> ids_;
  std::vector<bpe::TokenSpan> spans_;
  bpe::EncodeScratch scratch_;
  std::uint64_t bytes_ = 0;
  std::size_t ntokens_ = 0;
  double encode_ms_ = 0, encode_cpu_ms_ = 0;
  unsigned threads_ = 1;
};

// A file: encoded in chunks cut at guaranteed piece boundaries, printing as
// it goes, so memory stays bounded and `tok encode big | head` stops early.
// A special token that --special error refuses is looked for in the whole
// text before anything is printed (with several threads, while the others
// already encode), so nothing is printed for a refused text.
int encode_file(const EncodeArgs& a, const bpe::Tokenizer& tk, const MappedFile& in,
                const std::string& name, double load_ms) {
  std::string_view text = in.bytes();
  bpe::SpecialMode mode = a.enc.special_mode();
  const bool refuse = mode == bpe::SpecialMode::kError;
  if (refuse) mode = bpe::SpecialMode::kText;  // once none is found, specials are text
  EncodeWriter w(a, tk, name);
  // Several threads: 1 MiB chunks, enough of them to share out evenly
  // (text and code encode at different speeds) and few enough that the
  // per-chunk handoff costs nothing measurable. --tokens stays on one thread.
  unsigned threads = a.tokens ? 1 : a.jsonl.threads ? a.jsonl.threads : available_cpus();
  auto check = [&]() -> Status { return refuse ? tk.check_no_specials(text) : Status{}; };
  if (threads > 1 && text.size() >= 2 * bpe::Tokenizer::kParallelChunk && tk.can_cut()) {
    std::vector<std::size_t> cuts = tk.parallel_boundaries(text, threads, mode);
    if (Status st = w.chunks_in_order(text, cuts, mode, threads, check); !st.ok()) {
      w.abandon();
      return report(st.error());
    }
    w.finish(load_ms);
    return 0;
  }
  if (Status st = check(); !st.ok()) return report(make_error("{}: {}", name, st.error().message));
  std::vector<std::size_t> cuts = tk.chunk_boundaries(text, std::size_t{1} << 22, mode);
  std::size_t largest = 0;
  for (std::size_t c = 0; c + 1 < cuts.size(); ++c)
    largest = std::max(largest, cuts[c + 1] - cuts[c]);
  w.reserve(largest);
  w.expect_input(text.size());
  for (std::size_t c = 0; c + 1 < cuts.size(); ++c) {
    Status st = w.chunk(text.substr(cuts[c], cuts[c + 1] - cuts[c]), cuts[c], mode);
    if (!st.ok()) return report(st.error());
  }
  w.finish(load_ms);
  return 0;
}

// A pipe, terminal or device: encoded as it arrives (io::StreamChunks), so
// `yes | tok encode | head` ends and memory stays bounded. A refused special
// token can only be found in the chunk it arrives in: the tokens before it
// are printed by then, and the error follows them.
int encode_stream(const EncodeArgs& a, const bpe::Tokenizer& tk, int fd, const std::string& name,
                  double load_ms) {
  bpe::SpecialMode mode = a.enc.special_mode();
  const bool check = mode == bpe::SpecialMode::kError;
  if (check) mode = bpe::SpecialMode::kText;
  io::StreamChunks chunks(fd, name, tk, a.enc.special_mode());
  EncodeWriter w(a, tk, name);
  w.reserve(io::kStreamBlock);
  for (;;) {
    auto chunk = chunks.next();
    if (!chunk.ok()) return report(chunk.error());
    if (chunk->empty()) break;
    if (check) {
      if (Status st = tk.check_no_specials(*chunk, chunks.offset()); !st.ok()) {
        w.abandon();
        return report(make_error("{}: {}", name, st.error().message));
      }
    }
    if (Status st = w.chunk(*chunk, chunks.offset(), mode); !st.ok()) {
      w.abandon();
      return report(st.error());
    }
  }
  w.finish(load_ms);
  return 0;
}

int encode_path(const EncodeArgs& a, const bpe::Tokenizer& tk, const std::string& path,
                double load_ms) {
  const std::string name = input_name(path);
  if (path == "-") note_terminal_stdin();
  if (path == "-" && is_stream(0)) return encode_stream(a, tk, 0, name, load_ms);
  if (int fd = path == "-" ? -1 : open_if_stream(path); fd >= 0) {
    int rc = encode_stream(a, tk, fd, name, load_ms);
    ::close(fd);
    return rc;
  }
  auto in = open_text_input(path);
  if (!in.ok()) return report(in.error());
  return encode_file(a, tk, *in, name, load_ms);
}

// Inputs in order (files, then -t texts), one output line each; the first
// error stops, so line k is always input k's.
int run_encode(const EncodeArgs& a) {
  if (a.jsonl.active()) return run_encode_jsonl_args(a);
  a.jsonl.check_unused();
  auto t_load = std::chrono::steady_clock::now();
  auto tk = a.enc.load();
  double load_ms = ms_since(t_load);
  if (!tk.ok()) return report(tk.error());
  if (a.in.empty()) return encode_path(a, *tk, "-", load_ms);
  for (const auto& path : a.in.files) {
    if (int rc = encode_path(a, *tk, path, load_ms)) return rc;
  }
  for (std::size_t i = 0; i < a.in.texts.size(); ++i) {
    MappedFile text = MappedFile::from_string(a.in.texts[i]);
    if (int rc = encode_file(a, *tk, text, a.in.text_name(i), load_ms)) return rc;
  }
  return 0;
}

}  // namespace

void add_encode(CLI::App& app, CommandTable& commands) {
  auto a = std::make_shared<EncodeArgs>();
  CLI::App* sub = app.add_subcommand(
      "encode", "Print the token ids of each input, one line each (default: stdin)");
  a->enc.add_encoding(sub);
  a->enc.add_special(sub, "error");
  CLI::Option* special = sub->get_option("--special");
  CLI::Option* allow_special = sub->get_option("--allow-special");
  special->description(special->get_description() + " (default: error; text with --jsonl)");
  a->enc.add_edges(sub);
  a->in.add(sub, "Input files, read as raw bytes ('-' is stdin; default: stdin)");
  auto* j = sub->add_flag("--json", a->json, "Print a JSON array of ids");
  sub->add_flag("--tokens", a->tokens,
                "One line per token: id, byte offset, and the token's bytes (escaped)")
      ->excludes(j);
  sub->add_flag("--stats", a->stats,
                "Print timing as one JSON line on stderr (load and encode time, MB/s)");
  a->jsonl.add(sub);
  commands.add(sub, [a, special, allow_special] {
    a->special_given = special->count() > 0 || allow_special->count() > 0;
    return run_encode(*a);
  });
}

}  // namespace tok::cli
