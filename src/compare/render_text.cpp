// render_table (aligned text for a terminal or a pipe) and render_csv (one
// row per corpus x sample x vocabulary: the tidy shape programs want).
#include <fmt/format.h>

#include <algorithm>

#include "compare/report.hpp"
#include "text/escape.hpp"

namespace tok::compare {
namespace {

// The report with every name from the user (corpus paths, TSV header cells,
// file stems, vocabulary labels) made printable by the terminal escaper: a
// sample named ESC]0;...BEL must not retitle the window or clear the screen
// when the table (or CSV) is printed. Widths are measured on the escaped names.
Report printable_names(const Report& rep) {
  auto esc = [](std::string& s) { s = text::escape_terminal(s, {.backslash = false}); };
  Report out = rep;
  for (VocabColumn& v : out.vocabs) esc(v.label);
  for (CorpusTable& t : out.corpora) {
    esc(t.name);
    if (t.baseline) esc(*t.baseline);
    for (Row& r : t.rows) esc(r.sample);
  }
  return out;
}

constexpr const char* kBold = "\x1b[1;31m";
constexpr const char* kReset = "\x1b[0m";

// "cl100k_base" -> "cl100k" where columns are narrow. Never cut further:
// columns widen to fit the name instead ("mistral", not "mistra").
std::string short_label(const std::string& s, std::size_t width) {
  if (s.size() <= width) return s;
  std::string t = s;
  if (t.ends_with("_base")) t.resize(t.size() - 5);
  return t;
}

// The width of a column headed by each vocabulary's short label: at least
// `min`, and enough for the longest.
std::size_t label_width(const Report& rep, std::size_t min) {
  std::size_t w = min;
  for (const auto& v : rep.vocabs) w = std::max(w, short_label(v.label, min).size());
  return w;
}

std::string percent(std::optional<double> v) { return v ? fmt::format("{:.1f}", *v * 100.0) : "-"; }

// Begins a row: the worst-case mark, then the sample name.
void row_start(std::string& out, const Row& r, bool color, std::size_t name_w) {
  if (color && r.worst) out += kBold;
  out += (r.worst && !color) ? "! " : "  ";
  out += fmt::format("{:<{}}", r.sample, name_w);
}

void row_end(std::string& out, const Row& r, bool color) {
  if (color && r.worst) out += kReset;
  out += '\n';
}

void premium_table(std::string& out, const Report& rep, const CorpusTable& t, bool color,
                   std::size_t name_w) {
  out +=
      fmt::format("{:<{}}  {:<10} {:>9} {:>7}", "  sample", name_w + 2, "script", "bytes", "words");
  // Each vocabulary's block: tokens and premium under its full name.
  const std::size_t tw = label_width(rep, 19) - 9;  // the tokens column
  for (const auto& v : rep.vocabs) {
    out += fmt::format(" | {:>{}}", short_label(v.label, 19), tw + 9);
    if (v.price_per_mtok) out += fmt::format(" {:>9}", "$/1kwords");
  }
  out += '\n';
  out += fmt::format("{:<{}}  {:<10} {:>9} {:>7}", "", name_w + 2, "", "", "");
  for (const auto& v : rep.vocabs) {
    out += fmt::format(" | {:>{}} {:>8}", "tokens", tw, "premium");
    if (v.price_per_mtok) out += fmt::format(" {:>9}", "");
  }
  out += '\n';
  for (const Row& r : t.rows) {
    row_start(out, r, color, name_w);
    out += fmt::format("  {:<10} {:>9} {:>7}", short_label(r.script, 10), r.text.bytes,
                       rep.words ? fmt::format("{}", r.text.words) : "-");
    for (std::size_t v = 0; v < rep.vocabs.size(); ++v) {
      out += fmt::format(" | {:>{}} {:>8}", r.counts[v].tokens, tw, fixed(r.metrics[v].premium, 2));
      if (rep.vocabs[v].price_per_mtok) {
        out += fmt::format(" {:>9}", usd(r.metrics[v].cost_per_1k_words));
      }
    }
    row_end(out, r, color);
  }
}

void ratio_table(std::string& out, const Report& rep, const CorpusTable& t, bool color,
                 std::size_t name_w) {
  std::size_t nv = rep.vocabs.size();
  const std::size_t cw = label_width(rep, 6);  // one ratio cell
  std::size_t block = nv * (cw + 1);
  const char* titles[] = {"bytes/token", "chars/token", "tokens/word", "continued %"};
  out += fmt::format("{:<{}}", "  sample", name_w + 2);
  for (const char* title : titles) out += fmt::format(" | {:^{}}", title, block - 1);
  out += '\n';
  out += fmt::format("{:<{}}", "", name_w + 2);
  for (int k = 0; k < 4; ++k) {
    out += " |";
    for (const auto& v : rep.vocabs) out += fmt::format(" {:>{}}", short_label(v.label, 6), cw);
  }
  out += '\n';
  for (const Row& r : t.rows) {
    row_start(out, r, color, name_w);
    for (int k = 0; k < 4; ++k) {
      out += " |";
      for (std::size_t v = 0; v < nv; ++v) {
        const Metrics& m = r.metrics[v];
        std::string cell = k == 0   ? fixed(m.bytes_per_token, 2)
                           : k == 1 ? fixed(m.chars_per_token, 2)
                           : k == 2 ? fixed(m.fertility, 2)
                                    : percent(m.continued);
        out += fmt::format(" {:>{}}", cell, cw);
      }
    }
    row_end(out, r, color);
  }
}

void composition_table(std::string& out, const Report& rep) {
  out +=
      "\nvocabulary composition (ordinary tokens by script of their characters; ids = the "
      "vocabulary size, 0..N-1 with specials and unused ids)\n";
  const std::size_t lw = label_width(rep, 14);
  for (std::size_t v = 0; v < rep.composition.size(); ++v) {
    const Composition& c = rep.composition[v];
    out += fmt::format(
        "  {:<{}} {:>7} ordinary tokens of {} ids, mean {:.2f} bytes; partial UTF-8 {:.1f}%;",
        short_label(rep.vocabs[v].label, 14), lw, c.tokens, rep.vocabs[v].vocab_size, c.mean_bytes,
        c.tokens ? 100.0 * static_cast<double>(c.partial) / static_cast<double>(c.tokens) : 0.0);
    for (std::size_t k = 0; k < c.scripts.size() && k < 6; ++k) {
      out += fmt::format(
          " {} {:.1f}%", c.scripts[k].script,
          100.0 * static_cast<double>(c.scripts[k].tokens) / static_cast<double>(c.tokens));
    }
    out += '\n';
  }
  if (rep.jaccard.size() < 2) return;
  out += "\nvocabulary overlap (Jaccard index of token byte strings)\n";
  const std::size_t jw = label_width(rep, 12);
  out += fmt::format("  {:<{}}", "", lw);
  for (const auto& v : rep.vocabs) out += fmt::format(" {:>{}}", short_label(v.label, 12), jw);
  out += '\n';
  for (std::size_t a = 0; a < rep.jaccard.size(); ++a) {
    out += fmt::format("  {:<{}}", short_label(rep.vocabs[a].label, 14), lw);
    for (double j : rep.jaccard[a]) out += fmt::format(" {:>{}.3f}", j, jw);
    out += '\n';
  }
}

std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string csv_number(std::optional<double> v) {
  return v ? fmt::format("{:.6g}", *v) : std::string();
}

}  // namespace

std::string render_table(const Report& report, bool color) {
  const Report rep = printable_names(report);
  std::string out;
  for (const CorpusTable& t : rep.corpora) {
    std::size_t name_w = 6;
    for (const Row& r : t.rows) name_w = std::max(name_w, r.sample.size());
    out += fmt::format("{}: {} samples, ", t.name, t.rows.size());
    out += t.baseline
               ? fmt::format("premium = tokens / tokens of '{}' (same vocabulary)", *t.baseline)
               : std::string("no baseline sample here, so no premium");
    if (t.baseline) out += color ? "; worst in bold" : "; worst marked '!'";
    out += "\n\n";
    premium_table(out, rep, t, color, name_w);
    if (rep.words) {
      out += '\n';
      ratio_table(out, rep, t, color, name_w);
    }
    out += '\n';
  }
  if (!rep.composition.empty()) composition_table(out, rep);
  return out;
}

std::string render_csv(const Report& report) {
  const Report rep = printable_names(report);
  std::string out =
      "corpus,sample,script,vocabulary,bytes,graphemes,words,tokens,continued_words,"
      "bytes_per_token,chars_per_token,fertility,continued,premium,cost_per_1k_words\n";
  for (const CorpusTable& t : rep.corpora) {
    for (const Row& r : t.rows) {
      for (std::size_t v = 0; v < rep.vocabs.size(); ++v) {
        const Metrics& m = r.metrics[v];
        out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_field(t.name),
                           csv_field(r.sample), csv_field(r.script), csv_field(rep.vocabs[v].label),
                           r.text.bytes, rep.words ? fmt::format("{}", r.text.graphemes) : "",
                           rep.words ? fmt::format("{}", r.text.words) : "", r.counts[v].tokens,
                           rep.words ? fmt::format("{}", r.counts[v].continued_words) : "",
                           csv_number(m.bytes_per_token), csv_number(m.chars_per_token),
                           csv_number(m.fertility), csv_number(m.continued), csv_number(m.premium),
                           csv_number(m.cost_per_1k_words));
      }
    }
  }
  return out;
}

}  // namespace tok::compare
