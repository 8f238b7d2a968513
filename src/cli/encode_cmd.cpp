// tok encode [-e ENC] [--special MODE] [--json|--tokens] [FILE]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <vector>

#include "cli/command.hpp"
#include "cli/encoding_options.hpp"
#include "cli/input.hpp"
#include "core/id_text.hpp"
#include "core/output.hpp"

namespace tok::cli {
namespace {

struct EncodeArgs {
  EncodingOptions enc;
  std::string file;
  bool json = false;
  bool tokens = false;
  bool stats = false;
};

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// CPU time of this thread in ms: on a loaded machine the encode call's own cost.
double thread_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

// Encodes in chunks cut at guaranteed piece boundaries, printing as it goes:
// memory stays bounded and `tok encode big | head` stops early.
int run_encode(const EncodeArgs& a) {
  auto t_load = std::chrono::steady_clock::now();
  auto tk = a.enc.load();
  double load_ms = ms_since(t_load);
  if (!tk.ok()) return report(tk.error());
  auto in = open_input(a.file);
  if (!in.ok()) return report(in.error());
  std::string_view text = in->bytes();
  const std::string& name = in->path() == "-" ? std::string("<stdin>") : in->path();
  bpe::SpecialMode mode = a.enc.special_mode();
  if (mode == bpe::SpecialMode::kError && !tk->specials().empty()) {
    auto [at, k] = tk->find_special(text, 0, bpe::Tokenizer::Match::kRefusable);
    if (at != std::string_view::npos) {
      return report(make_error(
          "{}: the text contains the special token {} at byte {}; pass --special allow to encode "
          "it as a special token or --special text to encode it as ordinary text",
          name, tk->specials()[k].text, at));
    }
    mode = bpe::SpecialMode::kText;
  }
  Output out;
  bool first = true;
  if (a.json) out.put('[');
  std::vector<std::size_t> cuts = tk->chunk_boundaries(text, std::size_t{1} << 22, mode);
  if (a.tokens) {
    // Chunked like the id path, so memory stays bounded on big inputs.
    std::vector<bpe::TokenSpan> spans;
    for (std::size_t c = 0; c + 1 < cuts.size(); ++c) {
      spans.clear();
      auto st = tk->encode_spans(text.substr(cuts[c], cuts[c + 1] - cuts[c]), mode, spans);
      if (!st.ok()) return report(make_error("{}: {}", name, st.error().message));
      for (const auto& s : spans) {
        out.write_u64(s.id);
        out.put('\t');
        out.write_u64(cuts[c] + s.offset);
        out.write("\t\"");
        out.write(escape_bytes(tk->token_bytes(s.id)));
        out.write("\"\n");
      }
    }
    out.flush();
    return 0;
  }
  // Room for the largest chunk's ids up front (at most one per byte; pages
  // are only touched as ids fill them): grown by doubling, the vector copied
  // itself into fresh memory again and again, and fresh pages are costly.
  std::size_t largest = 0;
  for (std::size_t c = 0; c + 1 < cuts.size(); ++c) {
    largest = std::max(largest, cuts[c + 1] - cuts[c]);
  }
  std::vector<bpe::TokenId> ids;
  ids.reserve(largest + 2);
  bpe::EncodeScratch scratch;
  double encode_ms = 0, encode_cpu_ms = 0;
  std::size_t ntokens = 0;
  IdText id_text(a.json ? ',' : ' ', tk->vocab_size());
  auto emit = [&](bpe::TokenId id) {
    if (first) {
      out.write_u64(id);
      first = false;
    } else {
      id_text.put(out, id);
    }
  };
  if (a.enc.add_edge_tokens && tk->add_bos && tk->bos) emit(*tk->bos);
  for (std::size_t c = 0; c + 1 < cuts.size(); ++c) {
    ids.clear();
    auto t0 = std::chrono::steady_clock::now();
    double c0 = thread_cpu_ms();
    auto st = tk->encode(text.substr(cuts[c], cuts[c + 1] - cuts[c]), mode, ids, scratch);
    encode_cpu_ms += thread_cpu_ms() - c0;
    encode_ms += ms_since(t0);
    ntokens += ids.size();
    if (!st.ok()) return report(make_error("{}: {}", name, st.error().message));
    std::size_t k = 0;
    if (first && !ids.empty()) emit(ids[k++]);
    for (; k < ids.size(); ++k) id_text.put(out, ids[k]);
  }
  if (a.enc.add_edge_tokens && tk->add_eos && tk->eos) emit(*tk->eos);
  if (a.json) out.put(']');
  out.put('\n');
  out.flush();
  if (a.stats) {
    std::fprintf(stderr,
                 "{\"encoding\":\"%s\",\"bytes\":%zu,\"tokens\":%zu,\"load_ms\":%.2f,"
                 "\"encode_ms\":%.2f,\"encode_cpu_ms\":%.2f,\"encode_mb_per_s\":%.2f}\n",
                 tk->name().c_str(), text.size(), ntokens, load_ms, encode_ms, encode_cpu_ms,
                 encode_ms > 0 ? text.size() / 1e3 / encode_ms : 0.0);
  }
  return 0;
}

}  // namespace

void add_encode(CLI::App& app, Registry& r) {
  auto a = std::make_shared<EncodeArgs>();
  CLI::App* sub = app.add_subcommand("encode", "Print the token ids of FILE (or stdin)");
  a->enc.add_encoding(sub);
  a->enc.add_special(sub, "error");
  a->enc.add_edges(sub);
  sub->add_option("FILE", a->file, "Input file, read as raw bytes (default: stdin)");
  auto* j = sub->add_flag("--json", a->json, "Print a JSON array of ids");
  sub->add_flag("--tokens", a->tokens,
                "One line per token: id, byte offset, and the token's bytes (escaped)")
      ->excludes(j);
  sub->add_flag("--stats", a->stats,
                "Print timing as one JSON line on stderr (load and encode time, MB/s)");
  r.add(sub, [a] { return run_encode(*a); });
}

}  // namespace tok::cli
