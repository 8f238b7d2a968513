// tok encode [-e ENC] [--special MODE] [--json|--tokens] [FILE]
#include <vector>

#include "cli/command.hpp"
#include "cli/encoding_options.hpp"
#include "cli/input.hpp"
#include "core/output.hpp"

namespace tok::cli {
namespace {

struct EncodeArgs {
  EncodingOptions enc;
  std::string file;
  bool json = false;
  bool tokens = false;
};

// Encodes in chunks cut at guaranteed piece boundaries, printing as it goes:
// memory stays bounded and `tok encode big | head` stops early.
int run_encode(const EncodeArgs& a) {
  auto tk = a.enc.load();
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
  if (a.tokens) {
    std::vector<bpe::TokenSpan> spans;
    auto st = tk->encode_spans(text, mode, spans);
    if (!st.ok()) return report(make_error("{}: {}", name, st.error().message));
    for (const auto& s : spans) {
      out.write_u64(s.id);
      out.put('\t');
      out.write_u64(s.offset);
      out.write("\t\"");
      out.write(escape_bytes(tk->token_bytes(s.id)));
      out.write("\"\n");
    }
    return 0;
  }
  std::vector<std::size_t> cuts = tk->chunk_boundaries(text, std::size_t{1} << 22, mode);
  std::vector<bpe::TokenId> ids;
  bpe::EncodeScratch scratch;
  for (std::size_t c = 0; c + 1 < cuts.size(); ++c) {
    ids.clear();
    auto st = tk->encode(text.substr(cuts[c], cuts[c + 1] - cuts[c]), mode, ids, scratch);
    if (!st.ok()) return report(make_error("{}: {}", name, st.error().message));
    for (bpe::TokenId id : ids) {
      if (!first) out.put(a.json ? ',' : ' ');
      first = false;
      out.write_u64(id);
    }
  }
  if (a.json) out.put(']');
  out.put('\n');
  out.flush();
  return 0;
}

}  // namespace

void add_encode(CLI::App& app, Registry& r) {
  auto a = std::make_shared<EncodeArgs>();
  CLI::App* sub = app.add_subcommand("encode", "Print the token ids of FILE (or stdin)");
  a->enc.add_encoding(sub);
  a->enc.add_special(sub, "error");
  sub->add_option("FILE", a->file, "Input file, read as raw bytes (default: stdin)");
  auto* j = sub->add_flag("--json", a->json, "Print a JSON array of ids");
  sub->add_flag("--tokens", a->tokens,
                "One line per token: id, byte offset, and the token's bytes (escaped)")
      ->excludes(j);
  r.add(sub, [a] { return run_encode(*a); });
}

}  // namespace tok::cli
