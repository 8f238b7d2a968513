// tok chunk -n N [--overlap K] [FILE]: pieces of at most N tokens, cut at
// token boundaries (preferring paragraph, then line breaks), as JSONL:
// {"index", "start", "end", "tokens", "text"} with byte offsets.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/input.hpp"
#include "cli/model_options.hpp"
#include "cli/numeric_options.hpp"
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
  auto chunks = cost::chunk_text(**tk, in->bytes(), a.n, a.overlap, a.mo.enc.special_mode());
  if (!chunks.ok()) return report(make_error("{}: {}", name, chunks.error().message));
  Output out;
  for (std::size_t i = 0; i < chunks->size(); ++i) {
    const cost::Chunk& c = (*chunks)[i];
    nlohmann::ordered_json j{{"index", i}, {"start", c.start}, {"end", c.end}, {"tokens", c.tokens}};
    if (!a.no_text) j["text"] = std::string(in->bytes().substr(c.start, c.end - c.start));
    out.write(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    out.put('\n');
  }
  out.flush();
  return 0;
}

}  // namespace

void add_chunk(CLI::App& app, Registry& r) {
  auto a = std::make_shared<ChunkArgs>();
  CLI::App* sub = app.add_subcommand("chunk", "Split text into pieces of at most N tokens (JSONL)");
  a->mo.add(sub);
  sub->add_option("-n,--tokens", a->n, "Most tokens per piece")->required()->check(integer_in(1, kMaxTokenCount));
  sub->add_option("--overlap", a->overlap, "Tokens shared by consecutive pieces")->capture_default_str()
      ->check(integer_in(0, kMaxTokenCount));
  sub->add_flag("--no-text", a->no_text, "Leave the text out of each line (offsets and counts only)");
  sub->add_option("FILE", a->file, "Input file (default: stdin)");
  r.add(sub, [a] { return run_chunk(*a); });
}

}  // namespace tok::cli
