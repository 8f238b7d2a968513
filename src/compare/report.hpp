// Report: everything `tok compare` shows, as plain data, built once and then
// rendered as a terminal table, CSV, JSON, an SVG chart or an HTML page (the
// render_* functions, each in its own file). Rows are sorted worst first:
// by mean premium over the vocabularies, else by tokens.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compare/composition.hpp"
#include "compare/corpus.hpp"
#include "compare/measure.hpp"
#include "compare/metrics.hpp"

namespace tok::compare {

struct VocabColumn {
  std::string label;  // short name shown in tables (encoding or model id)
  std::string spec;   // what -e said
  std::size_t vocab_size = 0;
  std::optional<std::string> model;      // -m: the model priced
  std::optional<double> price_per_mtok;  // -m: USD per million input tokens
};

struct Row {
  std::string sample;
  std::string script;  // main script of the sample's letters ("" without words)
  TextCounts text;
  std::vector<TokenCounts> counts;  // (vocabularies)
  std::vector<Metrics> metrics;     // (vocabularies)
  std::optional<double> mean_premium;
  bool worst = false;  // among the worst fifth of the rows by premium
};

struct CorpusTable {
  std::string name;
  std::optional<std::string> baseline;  // absent: the corpus lacks the sample
  std::vector<Row> rows;                // worst first
};

struct Report {
  std::vector<VocabColumn> vocabs;
  bool words = true;  // ICU metrics measured
  std::vector<CorpusTable> corpora;
  std::vector<Composition> composition;      // (vocabularies); empty if not asked
  std::vector<std::vector<double>> jaccard;  // (vocabularies x vocabularies)
};

CorpusTable build_table(const Corpus& corpus, const std::vector<SampleCounts>& counts,
                        const std::vector<VocabColumn>& vocabs, const std::string& baseline,
                        bool words);

// Renderers. `color`: ANSI bold/colour for the worst rows (else marked '!').
std::string render_table(const Report& r, bool color);
std::string render_csv(const Report& r);
std::string render_json(const Report& r);
std::string render_svg(const Report& r, std::size_t corpus_index);
std::string render_html(const Report& r);

// Helpers shared by the renderers.
std::string fixed(std::optional<double> v, int decimals);  // "-" when absent
std::string usd(std::optional<double> v);
}  // namespace tok::compare
