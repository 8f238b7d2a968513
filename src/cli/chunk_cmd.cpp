// tok chunk -n N [--overlap K] [FILE|DIR|-]... [-t TEXT]...: pieces of at most
// N tokens, cut at token boundaries (preferring paragraph, then line breaks),
// as JSONL: {"path", "index", "start", "end", "tokens", "text"} with byte
// offsets into the input named by path. Directories are walked as `tok count`
// walks them (io/file_walk: .gitignore rules, binary files skipped).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "bpe/encoder.hpp"
#include "cli/command.hpp"
#include "cli/input.hpp"
#include "cli/model_options.hpp"
#include "cli/numeric_options.hpp"
#include "cli/text_inputs.hpp"
#include "cli/walk_options.hpp"
#include "core/output.hpp"
#include "io/file_walk.hpp"
#include "io/token_cut.hpp"
#include "text/escape.hpp"

namespace tok::cli {
namespace {

struct ChunkArgs {
  ModelOptions mo;
  std::size_t n = 0;
  std::size_t overlap = 0;
  bool no_text = false;
  TextInputs in;
  WalkFlags walk;
  bool verbose = false;
};

// The JSONL lines of one input; `path` names it in every line. Each line is
// written as its piece is cut, so `tok chunk big | head` ends early.
Status chunk_one(const ChunkArgs& a, const bpe::Tokenizer& tk, std::string_view bytes,
                 const std::string& path, Output& out) {
  std::size_t index = 0;
  Status s = io::chunk_text(
      tk, bytes, a.n, a.overlap, a.mo.enc.special_mode(), [&](const io::Chunk& c) -> Status {
        nlohmann::ordered_json j{{"path", path},
                                 {"index", index++},
                                 {"start", c.start},
                                 {"end", c.end},
                                 {"tokens", c.tokens}};
        if (!a.no_text) j["text"] = std::string(bytes.substr(c.start, c.end - c.start));
        out.write(text::escape_json_controls(
            j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
        out.put('\n');
        return {};
      });
  if (!s.ok()) return make_error("{}: {}", path, s.error().message);
  return {};
}

// Inputs in order: the files (directories expanded), then the -t texts. An
// input that fails is reported and the others still chunked (exit 1).
int run_chunk(const ChunkArgs& a) {
  cost::TokenizerSet set;
  auto tk = a.mo.resolve(set);
  if (!tk.ok()) return report(tk.error());
  std::vector<std::string> inputs = a.in.files;
  if (a.in.empty()) inputs.push_back("-");
  std::vector<std::pair<std::string, bool>> files;  // (path, found in a walk)
  int status = 0;
  for (const auto& e : io::expand_inputs(
           inputs, a.walk.options(),
           [&](std::string path, bool walked) { files.emplace_back(std::move(path), walked); })) {
    status = report(e);
  }
  Output out;
  std::vector<std::string> skipped;
  for (const auto& [path, walked] : files) {
    auto in = open_text_input(path);
    if (!in.ok()) {
      out.flush();
      status = report(in.error());
      continue;
    }
    if (walked && io::looks_binary(in->bytes())) {
      skipped.push_back(path);
      continue;
    }
    if (Status s = chunk_one(a, **tk, in->bytes(), input_name(path), out); !s.ok()) {
      out.flush();
      status = report(s.error());
    }
  }
  for (std::size_t i = 0; i < a.in.texts.size(); ++i) {
    if (Status s = chunk_one(a, **tk, a.in.texts[i], a.in.text_name(i), out); !s.ok()) {
      out.flush();
      status = report(s.error());
    }
  }
  out.flush();
  report_skipped_binary(skipped, a.verbose);
  return status;
}

}  // namespace

void add_chunk(CLI::App& app, CommandTable& commands) {
  auto a = std::make_shared<ChunkArgs>();
  CLI::App* sub = app.add_subcommand(
      "chunk", "Split files, directories or text into pieces of at most N tokens (JSONL)");
  a->mo.add(sub);
  sub->add_option("-n,--tokens", a->n, "Most tokens per piece")
      ->required()
      ->check(integer_in(1, kMaxTokenCount));
  sub->add_option("--overlap", a->overlap, "Tokens shared by consecutive pieces")
      ->capture_default_str()
      ->check(integer_in(0, kMaxTokenCount));
  sub->add_flag("--no-text", a->no_text,
                "Leave the text out of each line (path, offsets and counts only)");
  a->in.add(sub,
            "Files or directories (walked recursively, as tok count walks them; '-' is "
            "stdin; default: stdin)");
  a->walk.add(sub);
  sub->add_flag("--verbose", a->verbose,
                "List each binary file a directory walk skipped (default: one summary line)");
  commands.add(sub, [a] { return run_chunk(*a); });
}

}  // namespace tok::cli
