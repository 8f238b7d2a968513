// tok vocab info NAME [--json] (or -e NAME): what a vocabulary holds: size, special
// tokens, text pipeline, longest tokens, mean token length and the share of
// tokens in each Unicode script (compare::compose, ICU's uscript_getScript).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/encoding_options.hpp"
#include "compare/composition.hpp"
#include "core/output.hpp"
#include "text/escape.hpp"

namespace tok::cli {
namespace {

constexpr std::size_t kLongest = 10;
constexpr std::size_t kSpecialsShown = 12;

struct InfoArgs {
  EncodingOptions enc;
  std::string name;  // the positional NAME, as `tok vocab fetch NAME` takes it; else -e
  bool json = false;
};

// A token's bytes as one printable line (text::escape_terminal); a regex
// pattern keeps its backslashes as written.
std::string escape_token(std::string_view bytes, bool raw_backslash = false) {
  return text::escape_terminal(bytes, {.backslash = !raw_backslash});
}

// The kLongest ordinary tokens with the most bytes (lowest id first on ties).
std::vector<bpe::TokenId> longest_tokens(const bpe::Tokenizer& tk) {
  std::vector<bpe::TokenId> ids;
  for (std::size_t id = 0; id < tk.vocab_size(); ++id) {
    auto t = static_cast<bpe::TokenId>(id);
    if (tk.has_token(t) && !tk.is_special(t)) ids.push_back(t);
  }
  auto longer = [&](bpe::TokenId a, bpe::TokenId b) {
    auto la = tk.token_bytes(a).size(), lb = tk.token_bytes(b).size();
    return la != lb ? la > lb : a < b;
  };
  std::size_t k = std::min(kLongest, ids.size());
  std::partial_sort(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(k), ids.end(), longer);
  ids.resize(k);
  return ids;
}

double percent(std::size_t part, std::size_t whole) {
  return whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

void print_json(const bpe::Tokenizer& tk, const compare::Composition& c,
                const std::vector<bpe::TokenId>& longest, Output& out) {
  using J = nlohmann::ordered_json;
  J j;
  j["name"] = tk.name();
  j["ids"] = tk.vocab_size();
  j["ordinary_tokens"] = c.tokens;
  J specials = J::array();
  for (const auto& s : tk.specials())
    specials.push_back({{"text", escape_token(s.text)}, {"id", s.id}});
  std::sort(specials.begin(), specials.end(), [](const J& a, const J& b) {
    return a["id"].get<bpe::TokenId>() < b["id"].get<bpe::TokenId>();
  });
  j["specials"] = specials;
  J pre = J::array();
  for (const auto& p : tk.pretokenizers()) {
    pre.push_back({{"name", p.name()}, {"pattern", p.pattern()}});
  }
  j["pre_tokenizers"] = pre;
  j["pipeline"] = tk.pipeline;
  j["mean_bytes"] = c.mean_bytes;
  j["mean_chars"] = c.mean_chars;
  J lt = J::array();
  for (auto id : longest) {
    lt.push_back({{"id", id},
                  {"bytes", tk.token_bytes(id).size()},
                  {"text", escape_token(tk.token_bytes(id))}});
  }
  j["longest"] = lt;
  J scripts = J::array();
  for (const auto& s : c.scripts) {
    scripts.push_back(
        {{"script", s.script}, {"tokens", s.tokens}, {"share", percent(s.tokens, c.tokens) / 100}});
  }
  scripts.push_back({{"script", "partial"},
                     {"tokens", c.partial},
                     {"share", percent(c.partial, c.tokens) / 100}});
  j["scripts"] = scripts;
  out.write(
      text::escape_json_controls(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
  out.put('\n');
}

void print_text(const bpe::Tokenizer& tk, const compare::Composition& c,
                const std::vector<bpe::TokenId>& longest, Output& out) {
  out.write(fmt::format("{:<14}{}\n", "name", one_line(tk.name())));
  out.write(fmt::format("{:<14}{} ({} ordinary tokens, {} special)\n", "ids", tk.vocab_size(),
                        c.tokens, tk.specials().size()));
  for (const auto& p : tk.pretokenizers()) {
    out.write(fmt::format("{:<14}{}: {}\n", "split", p.name(), escape_token(p.pattern(), true)));
  }
  if (!tk.pipeline.empty()) out.write(fmt::format("{:<14}{}\n", "pipeline", one_line(tk.pipeline)));
  auto specials = tk.specials();
  std::sort(specials.begin(), specials.end(),
            [](const bpe::SpecialToken& a, const bpe::SpecialToken& b) { return a.id < b.id; });
  std::string sp;
  for (std::size_t i = 0; i < specials.size() && i < kSpecialsShown; ++i) {
    const auto& s = specials[i];
    sp += fmt::format("{}{} {}", i ? ", " : "", escape_token(s.text), s.id);
  }
  if (tk.specials().size() > kSpecialsShown) {
    sp += fmt::format(", ... ({} more; --json lists all)", tk.specials().size() - kSpecialsShown);
  }
  out.write(fmt::format("{:<14}{}\n", "specials", sp.empty() ? "none" : sp));
  out.write(fmt::format("{:<14}{:.2f} bytes; {:.2f} characters (whole-UTF-8 tokens)\n",
                        "mean length", c.mean_bytes, c.mean_chars));
  out.write("longest tokens\n");
  // A hostile vocabulary may hold a 1 MB token: the table shows its start.
  constexpr std::size_t kShownBytes = 256;  // above real vocabularies' longest (128)
  for (auto id : longest) {
    std::string_view b = tk.token_bytes(id);
    out.write(fmt::format("  {:>8} {:>4} bytes  \"{}\"{}\n", id, b.size(),
                          escape_token(b.substr(0, kShownBytes)),
                          b.size() > kShownBytes ? "..." : ""));
  }
  out.write("scripts (share of ordinary tokens)\n");
  for (const auto& s : c.scripts) {
    out.write(
        fmt::format("  {:<22}{:>8} {:>6.2f}%\n", s.script, s.tokens, percent(s.tokens, c.tokens)));
  }
  out.write(fmt::format("  {:<22}{:>8} {:>6.2f}%\n", "partial (not UTF-8)", c.partial,
                        percent(c.partial, c.tokens)));
}

int run_info(InfoArgs a) {
  if (!a.name.empty()) a.enc.encoding = a.name;
  auto tk = a.enc.load();
  if (!tk.ok()) return report(tk.error());
  compare::Composition c = compare::compose(*tk);
  auto longest = longest_tokens(*tk);
  Output out;
  if (a.json) {
    print_json(*tk, c, longest, out);
  } else {
    print_text(*tk, c, longest, out);
  }
  out.flush();
  return 0;
}

}  // namespace

void add_vocab_info(CLI::App& vocab, CommandTable& commands) {
  auto args = std::make_shared<InfoArgs>();
  auto* info = vocab.add_subcommand(
      "info",
      "Size, special tokens, split pattern and pipeline, longest tokens, mean token "
      "length and share of tokens per Unicode script of one vocabulary");
  args->enc.add_encoding(info);
  info->add_option("NAME", args->name,
                   "The vocabulary, as -e takes it (a name such as qwen3 or llama3, or a path); "
                   "default o200k_base")
      ->excludes("--encoding");
  info->add_flag("--json", args->json, "One JSON object");
  commands.add(info, [args] { return run_info(*args); });
}

}  // namespace tok::cli
