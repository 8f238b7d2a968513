// tok chunk -n N [--overlap K] [FILE]: pieces of at most N tokens, cut at
// token boundaries (preferring paragraph, then line breaks), as JSONL:
// {"index", "start", "end", "tokens", "text"} with byte offsets.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/input.hpp"
#include "cli/model_options.hpp"
#include "core/output.hpp"
#include "cost/token_cut.hpp"

namespace tok::cli {
namespace {

struct ChunkArgs {
  ModelOptions mo;
  std::size_t n = 0;
  std::size_t overlap = 0;
  bool no_text = false;
  std::string file = "-";
};

int run_chunk(const ChunkArgs& a) {
  cost::TokenizerSet set;
  auto tk = a.mo.resolve(set);
  if (!tk.ok()) return report(tk.error());
  auto in = open_input(a.file);
  if (!in.ok()) return report(in.error());
  std::string name = a.file == "-" ? "<stdin>" : a.file;
  Output out;
  std::size_t index = 0;
  // Each line is written as its piece is cut: `tok chunk big | head` ends early.
  Status s = cost::chunk_text(
      **tk, in->bytes(), a.n, a.overlap, a.mo.enc.special_mode(), [&](const cost::Chunk& c) -> Status {
        nlohmann::ordered_json j{{"index", index++}, {"start", c.start}, {"end", c.end}, {"tokens", c.tokens}};
        if (!a.no_text) j["text"] = std::string(in->bytes().substr(c.start, c.end - c.start));
        out.write(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
        out.put('\n');
        return {};
      });
  if (!s.ok()) {
    out.flush();
    return report(make_error("{}: {}", name, s.error().message));
  }
  out.flush();
  return 0;
}

}  // namespace

void add_chunk(CLI::App& app, Registry& r) {
  auto a = std::make_shared<ChunkArgs>();
  CLI::App* sub = app.add_subcommand("chunk", "Split text into pieces of at most N tokens (JSONL)");
  a->mo.add(sub);
  sub->add_option("-n,--tokens", a->n, "Most tokens per piece")->required();
  sub->add_option("--overlap", a->overlap, "Tokens shared by consecutive pieces")->capture_default_str();
  sub->add_flag("--no-text", a->no_text, "Leave the text out of each line (offsets and counts only)");
  sub->add_option("FILE", a->file, "Input file (default: stdin)");
  r.add(sub, [a] { return run_chunk(*a); });
}

}  // namespace tok::cli
