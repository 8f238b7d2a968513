#include "model/attention_svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "core/utf8.hpp"
#include "text/escape.hpp"

namespace tok::model {
namespace {

constexpr int kMargin = 24;
constexpr int kGridLabel = 64, kCellW = 92, kCellH = 42;  // overview grid
constexpr int kHeatTarget = 560;                          // heatmap side, pixels (about)
constexpr int kTokenLabel = 96;                           // room for token labels on an axis
constexpr int kLegendW = 320;
constexpr int kMinWidth = 760;  // the explanatory lines fit
const char* const kFont = "font-family=\"DejaVu Sans, Verdana, sans-serif\"";

struct Rgb {
  double r, g, b;
};

std::string hex(Rgb c) {
  auto ch = [](double v) { return static_cast<int>(std::lround(std::clamp(v, 0.0, 255.0))); };
  return fmt::format("#{:02x}{:02x}{:02x}", ch(c.r), ch(c.g), ch(c.b));
}

Rgb mix(Rgb a, Rgb b, double t) {
  return {a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t, a.b + (b.b - a.b) * t};
}

// Paul Tol's "bright" palette (readable with colour-blindness).
Rgb label_colour(HeadLabel l) {
  switch (l) {
    case HeadLabel::kSink: return {0xAA, 0x33, 0x77};
    case HeadLabel::kLocal: return {0x44, 0x77, 0xAA};
    case HeadLabel::kLongRange: return {0x22, 0x88, 0x33};
  }
  return {0x88, 0x88, 0x88};
}

// Sequential white -> yellow -> orange -> brown (ColorBrewer YlOrBr), t in [0, 1].
Rgb heat_colour(double t) {
  static constexpr std::array<Rgb, 5> kStops = {Rgb{0xff, 0xff, 0xff}, Rgb{0xfe, 0xe3, 0x91},
                                                Rgb{0xfe, 0x99, 0x29}, Rgb{0xcc, 0x4c, 0x02},
                                                Rgb{0x66, 0x25, 0x06}};
  t = std::clamp(t, 0.0, 1.0) * (kStops.size() - 1);
  std::size_t i = std::min<std::size_t>(static_cast<std::size_t>(t), kStops.size() - 2);
  return mix(kStops[i], kStops[i + 1], t - static_cast<double>(i));
}

// Weights are heavy-tailed: a square-root scale shows the small ones too.
constexpr int kLevels = 64;
int heat_level(double w) {
  return static_cast<int>(std::lround(std::sqrt(std::clamp(w, 0.0, 1.0)) * kLevels));
}

// A token as an axis label: spaces shown as a middle dot (SVG would collapse
// them), at most 12 characters (UTF-8 aware).
std::string token_label(std::string_view s) {
  std::string out;
  int chars = 0;
  for (std::size_t i = 0; i < s.size() && chars < 12; ++chars) {
    std::size_t len = utf8::symbol_length(s.substr(i));
    if (s[i] == ' ')
      out += "\xC2\xB7";
    else
      out.append(s.substr(i, len));
    i += len;
  }
  if (chars == 12) out += "\xE2\x80\xA6";
  return text::escape_markup(out);
}

std::string fmt_mass(double v) { return fmt::format("{:.2f}", v); }

double dominant(const HeadMetrics& m) {
  switch (m.label) {
    case HeadLabel::kSink: return m.sink_mass;
    case HeadLabel::kLocal: return m.local_mass;
    case HeadLabel::kLongRange: return m.far_mass;
  }
  return 0;
}

void text(std::string& s, double x, double y, int size, std::string_view anchor,
          std::string_view body, std::string_view extra = "") {
  s += fmt::format(
      "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"{}\" text-anchor=\"{}\" {}{}>{}</text>\n", x, y,
      size, anchor, kFont, extra, body);
}

// The label legend and the layers x heads grid; returns its height.
int render_grid(std::string& s, const AttentionReport& rep, int top) {
  const AttentionReportOptions& o = rep.options();
  int x0 = kMargin + kGridLabel, y = top;
  text(s, kMargin, y, 14, "start", "Heads (rows: layers, columns: heads), coloured by label",
       " font-weight=\"bold\"");
  y += 18;
  text(s, kMargin, y, 12, "start",
       fmt::format("sink: mass on position 0 &gt; {}; else local: mass on the last W = {} "
                   "positions &gt; {}; "
                   "else long-range",
                   o.sink_threshold, o.window, o.local_threshold),
       " fill=\"#444\"");
  y += 16;
  text(s, kMargin, y, 12, "start",
       "cell: label and its mass; H = entropy / ln(positions), 0..1; d = mean distance attended "
       "(tokens)",
       " fill=\"#444\"");
  y += 22;
  int lx = kMargin;
  for (HeadLabel l : {HeadLabel::kSink, HeadLabel::kLocal, HeadLabel::kLongRange}) {
    s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"14\" fill=\"{}\"/>\n", lx,
                     y - 11, hex(label_colour(l)));
    text(s, lx + 20, y, 12, "start",
         l == HeadLabel::kLongRange ? "long-range" : head_label_name(l));
    lx += 110;
  }
  y += 28;
  for (int h = 0; h < rep.heads(); ++h) {
    text(s, x0 + h * kCellW + kCellW / 2.0, y, 12, "middle", fmt::format("head {}", h));
  }
  y += 8;
  for (int l = 0; l < rep.layers(); ++l) {
    int cy = y + l * kCellH;
    text(s, x0 - 8, cy + kCellH / 2.0 + 4, 12, "end", fmt::format("layer {}", l));
    for (int h = 0; h < rep.heads(); ++h) {
      HeadMetrics m = rep.metrics({l, h});
      double strength = 0.2 + 0.8 * std::clamp((dominant(m) - 0.3) / 0.7, 0.0, 1.0);
      Rgb fill = mix({255, 255, 255}, label_colour(m.label), strength);
      bool dark = strength > 0.55;
      int cx = x0 + h * kCellW;
      s += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" stroke=\"#fff\"/>\n", cx,
          cy, kCellW, kCellH, hex(fill));
      std::string colour = dark ? " fill=\"#fff\"" : " fill=\"#111\"";
      std::string_view name = m.label == HeadLabel::kLongRange ? "long" : head_label_name(m.label);
      text(s, cx + kCellW / 2.0, cy + 17, 12, "middle",
           fmt::format("{} {}", name, fmt_mass(dominant(m))), colour + " font-weight=\"bold\"");
      text(s, cx + kCellW / 2.0, cy + 33, 11, "middle",
           fmt::format("H {:.2f}  d {:.1f}", m.entropy_norm, m.distance), colour);
    }
  }
  return y + rep.layers() * kCellH - top;
}

// Position ticks along both axes when there are no token labels.
void render_ticks(std::string& s, const Heatmap& m, int x0, int y0, double cell) {
  double span = static_cast<double>(m.tokens);
  double per_cell = std::ceil(span / m.bins);
  double step = std::pow(10.0, std::floor(std::log10(std::max(span / 6, 1.0))));
  for (double f : {1.0, 2.0, 5.0}) {
    if (span / (step * f) <= 8) {
      step *= f;
      break;
    }
  }
  for (double p = 0; p < span; p += step) {
    double off = std::floor(p / per_cell) * cell;
    text(s, x0 + off, y0 - 6, 10, "middle", fmt::format("{}", static_cast<long long>(p)));
    text(s, x0 - 6, y0 + off + 4, 10, "end", fmt::format("{}", static_cast<long long>(p)));
  }
}

// The heatmap's cells, rows [0, used), each row up to its diagonal.
void render_cells(std::string& s, const Heatmap& m, int used, int x0, int y0, int ci) {
  // Runs of equal colour level become one subpath of that level's path:
  // a few bytes per run instead of a rect per cell.
  std::vector<std::string> paths(kLevels + 1);
  for (int r = 0; r < used; ++r) {
    std::uint32_t n = m.row_count[static_cast<std::size_t>(r)];
    if (n == 0) continue;
    const float* row =
        m.cells.data() + static_cast<std::size_t>(r) * static_cast<std::size_t>(m.bins);
    for (int c = 0; c <= r;) {
      int level = heat_level(row[c] / n), end = c + 1;
      while (end <= r && heat_level(row[end] / n) == level) ++end;
      paths[static_cast<std::size_t>(level)] += fmt::format(
          "M{} {}h{}v{}h-{}z", x0 + c * ci, y0 + r * ci, (end - c) * ci, ci, (end - c) * ci);
      c = end;
    }
  }
  for (int level = 0; level <= kLevels; ++level) {
    if (paths[static_cast<std::size_t>(level)].empty()) continue;
    s += fmt::format("<path fill=\"{}\" d=\"{}\"/>\n",
                     hex(heat_colour(static_cast<double>(level) / kLevels)),
                     paths[static_cast<std::size_t>(level)]);
  }
}

// One head's heatmap panel; returns its height.
int render_heatmap(std::string& s, const AttentionReport& rep, const Heatmap& m,
                   const AttentionSvgInput& in, std::string_view why, int top) {
  HeadMetrics hm = rep.metrics(m.head);
  double cell = std::clamp(std::floor(static_cast<double>(kHeatTarget) / m.bins), 2.0, 18.0);
  bool labels = static_cast<std::size_t>(m.bins) == m.tokens && cell >= 8 && !in.tokens.empty();
  int used = 0;  // row bins that saw a query
  for (int r = 0; r < m.bins; ++r) {
    if (m.row_count[static_cast<std::size_t>(r)] > 0) used = r + 1;
  }
  int pad = labels ? kTokenLabel : 40;
  int x0 = kMargin + pad, y0 = top + 28 + pad;
  std::string name = m.head.layer >= 0 ? head_name(m.head) : "?";
  text(s, kMargin, top + 14, 14, "start",
       fmt::format(
           "Head {} ({}): sink {}, local {}, far {}, H {:.2f}, d {:.1f}{}", name,
           hm.label == HeadLabel::kLongRange ? "long-range" : head_label_name(hm.label),
           fmt_mass(hm.sink_mass), fmt_mass(hm.local_mass), fmt_mass(hm.far_mass), hm.entropy_norm,
           hm.distance,
           labels ? "" : fmt::format(" ({} tokens per cell)", (m.tokens + m.bins - 1) / m.bins)),
       " font-weight=\"bold\"");
  text(s, kMargin, top + 30, 11, "start",
       fmt::format("{}rows: query token (top to bottom); columns: key position attended to", why),
       " fill=\"#444\"");
  double side = cell * m.bins;
  // Grey: positions a row cannot see (the future).
  s +=
      fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{:.0f}\" height=\"{:.0f}\" fill=\"#e4e4e4\"/>\n",
                  x0, y0, side, cell * used);
  render_cells(s, m, used, x0, y0, static_cast<int>(cell));
  s += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{:.0f}\" height=\"{:.0f}\" fill=\"none\" "
      "stroke=\"#888\"/>\n",
      x0, y0, side, cell * used);
  if (labels) {
    int size = std::min(static_cast<int>(cell) - 1, 11);
    for (int i = 0; i < used && static_cast<std::size_t>(i) < in.tokens.size(); ++i) {
      std::string t = token_label(in.tokens[static_cast<std::size_t>(i)]);
      double mid = i * cell + cell / 2 + size / 3.0;
      text(s, x0 - 4, y0 + mid, size, "end", t);
      s += fmt::format(
          "<text transform=\"translate({:.1f},{}) rotate(-90)\" font-size=\"{}\" "
          "text-anchor=\"start\" {}>{}</text>\n",
          x0 + mid, y0 - 4, size, kFont, t);
    }
  } else {
    render_ticks(s, m, x0, y0, cell);
  }
  return 28 + pad + static_cast<int>(cell * used) + 24;
}

// The colour scale of the heatmaps: a gradient bar with weight ticks.
int render_legend(std::string& s, int top) {
  text(s, kMargin, top + 12, 12, "start",
       "attention weight (square-root colour scale; grey: future positions)");
  int y = top + 20;
  s += "<defs><linearGradient id=\"heat\" x1=\"0\" x2=\"1\" y1=\"0\" y2=\"0\">\n";
  for (int i = 0; i <= 8; ++i) {
    s += fmt::format("<stop offset=\"{:.3f}\" stop-color=\"{}\"/>\n", i / 8.0,
                     hex(heat_colour(i / 8.0)));
  }
  s += "</linearGradient></defs>\n";
  s += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"14\" fill=\"url(#heat)\" stroke=\"#888\"/>\n",
      kMargin, y, kLegendW);
  for (double w : {0.0, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0}) {
    double x = kMargin + std::sqrt(w) * kLegendW;
    s +=
        fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#333\"/>\n",
                    x, y + 14, y + 18);
    text(s, x, y + 30, 10, "middle", fmt::format("{}", w));
  }
  return 20 + 34;
}

}  // namespace

std::string render_attention_svg(const AttentionReport& rep, const AttentionSvgInput& in) {
  std::string body;
  int y = kMargin + 8;
  text(body, kMargin, y, 16, "start", text::escape_markup(in.title), " font-weight=\"bold\"");
  y += 30;
  y += render_grid(body, rep, y) + 30;
  int width = std::max(kMinWidth, kMargin * 2 + kGridLabel + rep.heads() * kCellW);
  std::vector<const Heatmap*> maps;
  for (HeadId h : rep.chosen_heatmap_heads()) {
    if (const Heatmap* m = rep.heatmap(h)) maps.push_back(m);
  }
  if (!maps.empty()) {
    y += render_legend(body, y) + 10;
    width = std::max(width, kMargin * 2 + kLegendW + 40);
  }
  // Default heads come in order: highest sink, local and far mass.
  static constexpr const char* kWhy[] = {"highest sink mass; ", "highest local mass; ",
                                         "highest far mass; "};
  bool defaults = rep.options().heatmap_heads.empty();
  for (std::size_t i = 0; i < maps.size(); ++i) {
    const Heatmap* m = maps[i];
    double cell = std::clamp(std::floor(static_cast<double>(kHeatTarget) / m->bins), 2.0, 18.0);
    width = std::max(width, kMargin * 2 + kTokenLabel + static_cast<int>(cell * m->bins) + 10);
    y += render_heatmap(body, rep, *m, in, defaults && i < 3 ? kWhy[i] : "", y);
  }
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\">\n<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n{2}</svg>\n",
      width, y + kMargin, body);
}

}  // namespace tok::model
