// render_html: one self-contained page (inline CSS, inline SVG charts, no
// scripts, nothing fetched) with every table and chart of the report.
#include <fmt/format.h>

#include "compare/report.hpp"
#include "text/escape.hpp"

namespace tok::compare {
namespace {

constexpr const char* kStyle = R"(
body { font-family: system-ui, "DejaVu Sans", Arial, sans-serif; margin: 2em auto;
       max-width: 1100px; color: #222; padding: 0 1em; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 2em; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.88em; }
th, td { border: 1px solid #ccc; padding: 3px 7px; }
th { background: #f2f2f2; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.worst td { background: #fde8e8; font-weight: bold; }
.note { color: #555; font-size: 0.9em; }
svg { max-width: 100%; height: auto; }
)";

std::string num(std::optional<double> v, int d) { return fixed(v, d); }

void premium_table(std::string& h, const Report& rep, const CorpusTable& t) {
  h += "<table>\n<tr><th rowspan=\"2\">sample</th><th rowspan=\"2\">script</th>"
       "<th rowspan=\"2\">bytes</th><th rowspan=\"2\">words</th>";
  for (const auto& v : rep.vocabs) {
    h += fmt::format("<th colspan=\"{}\">{}</th>", v.price_per_mtok ? 6 : 5,
                     text::escape_markup(v.label));
  }
  h += "</tr>\n<tr>";
  for (const auto& v : rep.vocabs) {
    h += "<th>tokens</th><th>premium</th><th>bytes/token</th><th>tokens/word</th>"
         "<th>continued</th>";
    if (v.price_per_mtok) h += "<th>$ per 1k words</th>";
  }
  h += "</tr>\n";
  for (const Row& r : t.rows) {
    h += fmt::format(
        "<tr{}><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>",
        r.worst ? " class=\"worst\"" : "", text::escape_markup(r.sample),
        text::escape_markup(r.script), r.text.bytes,
        rep.words ? fmt::format("{}", r.text.words) : "-");
    for (std::size_t v = 0; v < rep.vocabs.size(); ++v) {
      const Metrics& m = r.metrics[v];
      h += fmt::format(
          "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
          "<td class=\"num\">{}</td><td class=\"num\">{}</td>",
          r.counts[v].tokens, num(m.premium, 2), num(m.bytes_per_token, 2), num(m.fertility, 2),
          m.continued ? fmt::format("{:.1f}%", *m.continued * 100) : "-");
      if (rep.vocabs[v].price_per_mtok) {
        h += fmt::format("<td class=\"num\">{}</td>", usd(m.cost_per_1k_words));
      }
    }
    h += "</tr>\n";
  }
  h += "</table>\n";
}

void composition_section(std::string& h, const Report& rep) {
  h +=
      "<h2>Vocabulary composition</h2>\n<p class=\"note\">Ordinary tokens (no special "
      "tokens) by the Unicode script of their characters: <em>Common</em> = only spaces, "
      "digits and punctuation; <em>Mixed</em> = two or more scripts; <em>partial UTF-8</em> = "
      "pieces of multi-byte characters; <em>ids</em> = the vocabulary size N (ids 0..N-1, specials "
      "and unused ids included).</p>\n<table>\n<tr><th>vocabulary</th><th>ids</th><th>ordinary "
      "tokens</th>"
      "<th>mean bytes</th><th>mean chars</th><th>partial UTF-8</th><th>scripts (top 8)</th></tr>\n";
  for (std::size_t v = 0; v < rep.composition.size(); ++v) {
    const Composition& c = rep.composition[v];
    double n = c.tokens ? static_cast<double>(c.tokens) : 1.0;
    std::string scripts;
    for (std::size_t k = 0; k < c.scripts.size() && k < 8; ++k) {
      scripts +=
          fmt::format("{}{} {:.1f}%", k ? ", " : "", text::escape_markup(c.scripts[k].script),
                      100.0 * static_cast<double>(c.scripts[k].tokens) / n);
    }
    h += fmt::format(
        "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td "
        "class=\"num\">{:.2f}</td>"
        "<td class=\"num\">{:.2f}</td><td class=\"num\">{:.1f}%</td><td>{}</td></tr>\n",
        text::escape_markup(rep.vocabs[v].label), rep.vocabs[v].vocab_size, c.tokens, c.mean_bytes,
        c.mean_chars, 100.0 * static_cast<double>(c.partial) / n, scripts);
  }
  h += "</table>\n";
  if (rep.jaccard.size() < 2) return;
  h += "<h2>Vocabulary overlap</h2>\n<p class=\"note\">Jaccard index of the sets of token "
       "byte strings.</p>\n<table>\n<tr><th></th>";
  for (const auto& v : rep.vocabs) h += fmt::format("<th>{}</th>", text::escape_markup(v.label));
  h += "</tr>\n";
  for (std::size_t a = 0; a < rep.jaccard.size(); ++a) {
    h += fmt::format("<tr><th>{}</th>", text::escape_markup(rep.vocabs[a].label));
    for (double j : rep.jaccard[a]) h += fmt::format("<td class=\"num\">{:.3f}</td>", j);
    h += "</tr>\n";
  }
  h += "</table>\n";
}

}  // namespace

std::string render_html(const Report& rep) {
  std::string h =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<title>tok compare: token inflation</title>\n<style>";
  h += kStyle;
  h += "</style>\n</head>\n<body>\n<h1>Token inflation across samples and vocabularies</h1>\n";
  h += "<p class=\"note\">Made by <code>tok compare</code>. <b>premium</b> = tokens of a sample "
       "/ tokens of the baseline sample, same vocabulary (Petrov et al. 2023); "
       "<b>tokens/word</b> = fertility over ICU words; <b>continued</b> = share of words split "
       "into two or more tokens. Rows are sorted worst first; the worst fifth is "
       "highlighted.</p>\n<p>Vocabularies: ";
  for (std::size_t v = 0; v < rep.vocabs.size(); ++v) {
    const auto& vc = rep.vocabs[v];
    h += fmt::format(
        "{}<b>{}</b> ({} ids{})", v ? ", " : "", text::escape_markup(vc.label), vc.vocab_size,
        vc.price_per_mtok ? fmt::format(", {}/M input tokens", usd(*vc.price_per_mtok)) : "");
  }
  h += "</p>\n";
  for (std::size_t c = 0; c < rep.corpora.size(); ++c) {
    const CorpusTable& t = rep.corpora[c];
    h += fmt::format(
        "<h2>{} ({} samples{})</h2>\n", text::escape_markup(t.name), t.rows.size(),
        t.baseline ? fmt::format(", baseline '{}'", text::escape_markup(*t.baseline)) : "");
    h += render_svg(rep, c);
    premium_table(h, rep, t);
  }
  if (!rep.composition.empty()) composition_section(h, rep);
  h += "</body>\n</html>\n";
  return h;
}

}  // namespace tok::compare
