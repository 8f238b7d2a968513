#include "compare/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/number_format.hpp"

namespace tok::compare {

CorpusTable build_table(const Corpus& corpus, const std::vector<SampleCounts>& counts,
                        const std::vector<VocabColumn>& vocabs, const std::string& baseline,
                        bool words) {
  CorpusTable t{corpus.name, std::nullopt, {}};
  const SampleCounts* base = nullptr;
  for (std::size_t i = 0; i < corpus.samples.size(); ++i) {
    if (corpus.samples[i].name == baseline) base = &counts[i];
  }
  if (base) t.baseline = baseline;
  for (std::size_t i = 0; i < corpus.samples.size(); ++i) {
    Row row{corpus.samples[i].name, counts[i].main_script, counts[i].text, counts[i].vocab, {}, {}};
    double sum = 0;
    std::size_t n = 0;
    for (std::size_t v = 0; v < vocabs.size(); ++v) {
      std::optional<std::size_t> b;
      if (base) b = base->vocab[v].tokens;
      Metrics m = derive_metrics(row.text, row.counts[v], b, vocabs[v].price_per_mtok, words);
      if (m.premium) {
        sum += *m.premium;
        ++n;
      }
      row.metrics.push_back(m);
    }
    if (n) row.mean_premium = sum / static_cast<double>(n);
    t.rows.push_back(std::move(row));
  }
  std::stable_sort(t.rows.begin(), t.rows.end(), [](const Row& a, const Row& b) {
    if (a.mean_premium && b.mean_premium && *a.mean_premium != *b.mean_premium) {
      return *a.mean_premium > *b.mean_premium;
    }
    std::size_t ta = a.counts.empty() ? 0 : a.counts[0].tokens;
    std::size_t tb = b.counts.empty() ? 0 : b.counts[0].tokens;
    return ta > tb;
  });
  // Worst fifth (at least one row), among rows worse than the baseline.
  std::size_t worst = (t.rows.size() + 4) / 5;
  for (std::size_t i = 0; i < t.rows.size() && i < worst; ++i) {
    Row& r = t.rows[i];
    r.worst = r.mean_premium && *r.mean_premium > 1.0;
  }
  return t;
}

std::string fixed(std::optional<double> v, int decimals) {
  if (!v || !std::isfinite(*v)) return "-";
  return fmt::format("{:.{}f}", *v, decimals);
}

std::string usd(std::optional<double> v) {
  if (!v || !std::isfinite(*v)) return "-";
  return format_usd(*v);
}

}  // namespace tok::compare
