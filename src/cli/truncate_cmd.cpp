// tok truncate -n N [-e ENC|-m MODEL] [--keep start|end] [FILE | -t TEXT]
// Prints the longest prefix (or suffix) of the input that fits N tokens, cut
// at a token boundary (io/token_cut.hpp).
#include <fmt/format.h>

#include "bpe/encoder.hpp"
#include "cli/command.hpp"
#include "cli/input.hpp"
#include "cli/model_options.hpp"
#include "cli/numeric_options.hpp"
#include "cli/text_inputs.hpp"
#include "core/output.hpp"
#include "io/token_cut.hpp"

namespace tok::cli {
namespace {

struct TruncateArgs {
  ModelOptions mo;
  std::size_t n = 0;
  std::string keep = "start";
  TextInputs in;
};

int run_truncate(const TruncateArgs& a) {
  cost::TokenizerSet set;
  auto tk = a.mo.resolve(set);
  if (!tk.ok()) return report(tk.error());
  a.in.require_one("truncate");
  std::string name =
      a.in.texts.empty() ? input_name(a.in.files.empty() ? "-" : a.in.files[0]) : a.in.text_name(0);
  auto in = a.in.texts.empty() ? open_text_input(a.in.files.empty() ? "-" : a.in.files[0])
                               : Result<MappedFile>(MappedFile::from_string(a.in.texts[0]));
  if (!in.ok()) return report(in.error());
  std::string_view text = in->bytes();
  bpe::SpecialMode mode = a.mo.enc.special_mode();
  std::string_view kept;
  if (a.keep == "start") {
    auto end = io::fit_prefix(**tk, text, a.n, mode);
    if (!end.ok()) return report(make_error("{}: {}", name, end.error().message));
    kept = text.substr(0, *end);
  } else {
    auto start = io::fit_suffix(**tk, text, a.n, mode);
    if (!start.ok()) return report(make_error("{}: {}", name, start.error().message));
    kept = text.substr(*start);
  }
  Output out;
  out.write(kept);
  out.flush();
  return 0;
}

}  // namespace

void add_truncate(CLI::App& app, CommandTable& commands) {
  auto a = std::make_shared<TruncateArgs>();
  CLI::App* sub =
      app.add_subcommand("truncate", "Print the longest prefix (or suffix) that fits N tokens");
  a->mo.add(sub);
  sub->add_option("-n,--tokens", a->n, "Token budget")
      ->required()
      ->check(integer_in(0, kMaxTokenCount));
  sub->add_option("--keep", a->keep, "Keep the start (prefix) or the end (suffix)")
      ->check(CLI::IsMember({"start", "end"}))
      ->capture_default_str();
  a->in.add(sub, "Input file ('-' is stdin; default: stdin)");
  commands.add(sub, [a] { return run_truncate(*a); });
}

}  // namespace tok::cli
