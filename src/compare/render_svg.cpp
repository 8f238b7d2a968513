// render_svg: a horizontal grouped bar chart of one corpus: a group of bars
// per sample (worst on top), one bar per vocabulary, its length the premium
// (or the token count when the corpus has no baseline sample). Hand-written
// SVG 1.1, no scripts or external references, so it renders anywhere and
// embeds in the HTML report as is.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "compare/report.hpp"
#include "text/escape.hpp"

namespace tok::compare {
namespace {

// Paul Tol's "bright" palette: distinguishable with colour-blindness.
constexpr const char* kPalette[] = {"#4477AA", "#EE6677", "#228833", "#CCBB44",
                                    "#66CCEE", "#AA3377", "#BBBBBB"};
constexpr int kWidth = 960, kLeft = 170, kRight = 70, kTop = 86, kBottom = 56;
constexpr int kBar = 10, kGap = 9;

double nice_step(double max, int target_ticks) {
  double raw = max / target_ticks;
  double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (m * mag >= raw) return m * mag;
  }
  return 10 * mag;
}

std::string number_label(double v, bool premium) {
  return premium ? fmt::format("{:.2f}", v) : fmt::format("{}", static_cast<long long>(v));
}

}  // namespace

std::string render_svg(const Report& rep, std::size_t corpus_index) {
  const CorpusTable& t = rep.corpora.at(corpus_index);
  const std::size_t nv = rep.vocabs.size();
  const bool premium = t.baseline.has_value();
  auto value = [&](const Row& r, std::size_t v) {
    return premium ? r.metrics[v].premium.value_or(0.0) : static_cast<double>(r.counts[v].tokens);
  };
  double max = premium ? 1.0 : 1.0;
  for (const Row& r : t.rows) {
    for (std::size_t v = 0; v < nv; ++v) max = std::max(max, value(r, v));
  }
  double step = nice_step(max, 8);
  double axis_max = std::ceil(max / step) * step;
  const int group = static_cast<int>(nv) * kBar + kGap;
  const int plot_h = static_cast<int>(t.rows.size()) * group;
  const int height = kTop + plot_h + kBottom;
  const double plot_w = kWidth - kLeft - kRight;
  auto x_of = [&](double v) { return kLeft + plot_w * v / axis_max; };

  std::string s;
  s += fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"DejaVu Sans, Arial, sans-serif\" "
      "font-size=\"12\">\n",
      kWidth, height);
  s += fmt::format("<rect width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>\n", kWidth, height);
  std::string title = premium
                          ? fmt::format("Token premium relative to '{}': {}", *t.baseline, t.name)
                          : fmt::format("Tokens per sample: {}", t.name);
  s += fmt::format("<text x=\"{}\" y=\"24\" font-size=\"16\" font-weight=\"bold\">{}</text>\n",
                   kLeft, text::escape_markup(title));
  // Legend.
  double lx = kLeft;
  for (std::size_t v = 0; v < nv; ++v) {
    s += fmt::format("<rect x=\"{:.1f}\" y=\"38\" width=\"14\" height=\"14\" fill=\"{}\"/>\n", lx,
                     kPalette[v % std::size(kPalette)]);
    s += fmt::format("<text x=\"{:.1f}\" y=\"50\">{}</text>\n", lx + 19,
                     text::escape_markup(rep.vocabs[v].label));
    lx += 19 + 7.5 * static_cast<double>(rep.vocabs[v].label.size()) + 24;
  }
  // Grid and axis.
  for (double tick = 0; tick <= axis_max + step / 2; tick += step) {
    double x = x_of(tick);
    s += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#dddddd\"/>\n", x,
        kTop - 6, kTop + plot_h);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", x,
                     kTop + plot_h + 18,
                     premium ? fmt::format("{:g}", tick) : number_label(tick, false));
  }
  s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                   kLeft + plot_w / 2, kTop + plot_h + 42,
                   premium ? text::escape_markup(fmt::format(
                                 "premium (tokens / tokens of '{}', same vocabulary)", *t.baseline))
                           : "tokens");
  if (premium) {
    double x = x_of(1.0);
    s += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#333333\" "
        "stroke-dasharray=\"4 3\"/>\n",
        x, kTop - 6, kTop + plot_h);
  }
  // Bars.
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const Row& r = t.rows[i];
    int y0 = kTop + static_cast<int>(i) * group;
    std::string label = r.script.empty() ? r.sample : fmt::format("{} ({})", r.sample, r.script);
    s += fmt::format(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" dominant-baseline=\"middle\"{}>{}</text>\n",
        kLeft - 8, y0 + static_cast<int>(nv) * kBar / 2, r.worst ? " font-weight=\"bold\"" : "",
        text::escape_markup(label));
    for (std::size_t v = 0; v < nv; ++v) {
      double val = value(r, v);
      double w = std::max(0.0, x_of(val) - kLeft);
      int y = y0 + static_cast<int>(v) * kBar;
      s += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\"><title>{} / {}: "
          "{}</title></rect>\n",
          kLeft, y, w, kBar - 1, kPalette[v % std::size(kPalette)], text::escape_markup(r.sample),
          text::escape_markup(rep.vocabs[v].label), number_label(val, premium));
      s += fmt::format(
          "<text x=\"{:.1f}\" y=\"{}\" font-size=\"9\" dominant-baseline=\"middle\" "
          "fill=\"#333333\">{}</text>\n",
          kLeft + w + 3, y + kBar / 2, number_label(val, premium));
    }
  }
  s += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#333333\"/>\n",
                   kLeft, kTop - 6, kTop + plot_h);
  s += "</svg>\n";
  return s;
}

}  // namespace tok::compare
