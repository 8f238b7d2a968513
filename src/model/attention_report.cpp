#include "model/attention_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

namespace tok::model {
namespace {

bool parse_int(std::string_view s, int& out) {
  if (s.empty()) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size() && out >= 0;
}

// Four decimals: enough to compare heads, short enough to read.
double round4(double v) { return std::round(v * 1e4) / 1e4; }

}  // namespace

Result<std::vector<HeadId>> parse_head_list(std::string_view spec, int layers, int heads) {
  std::vector<HeadId> out;
  std::size_t start = 0;
  while (start <= spec.size()) {
    std::size_t comma = spec.find(',', start);
    std::string_view item =
        spec.substr(start, comma == std::string_view::npos ? spec.npos : comma - start);
    std::size_t dot = item.find('.');
    HeadId h;
    if (dot == std::string_view::npos || !parse_int(item.substr(0, dot), h.layer) ||
        !parse_int(item.substr(dot + 1), h.head)) {
      return make_error("bad head '{}': expected LAYER.HEAD, e.g. 0.3 (0-based), comma-separated",
                        item);
    }
    if (layers > 0 && heads > 0 && (h.layer >= layers || h.head >= heads)) {
      return make_error("head {} does not exist: the model has layers 0..{} and heads 0..{}", item,
                        layers - 1, heads - 1);
    }
    if (std::find(out.begin(), out.end(), h) == out.end()) out.push_back(h);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

std::string head_name(HeadId h) { return fmt::format("{}.{}", h.layer, h.head); }

std::string_view head_label_name(HeadLabel l) {
  switch (l) {
    case HeadLabel::kSink: return "sink";
    case HeadLabel::kLocal: return "local";
    case HeadLabel::kLongRange: return "long_range";
  }
  return "?";
}

AttentionReport::AttentionReport(int layers, int heads, AttentionReportOptions options)
    : layers_(layers),
      heads_(heads),
      options_(std::move(options)),
      sums_(static_cast<std::size_t>(layers * heads)),
      rows_seen_(static_cast<std::size_t>(layers), 0),
      heatmap_of_(static_cast<std::size_t>(layers * heads), -1) {
  std::vector<HeadId> keep = options_.heatmap_heads;
  if (options_.keep_all_heatmaps && keep.empty()) {
    for (int l = 0; l < layers; ++l) {
      for (int h = 0; h < heads; ++h) keep.push_back({l, h});
    }
  }
  std::size_t tokens = std::max<std::size_t>(options_.expected_rows, 1);
  // A whole number of tokens per cell, so every cell spans the same positions.
  std::size_t cells = static_cast<std::size_t>(std::max(options_.heatmap_cells, 1));
  std::size_t per_cell = (tokens + cells - 1) / cells;
  int bins = static_cast<int>((tokens + per_cell - 1) / per_cell);
  for (HeadId h : keep) {
    if (h.layer < 0 || h.layer >= layers || h.head < 0 || h.head >= heads) continue;
    heatmap_of_[index(h)] = static_cast<int>(heatmaps_.size());
    Heatmap m;
    m.head = h;
    m.bins = bins;
    m.tokens = tokens;
    m.cells.assign(static_cast<std::size_t>(bins) * static_cast<std::size_t>(bins), 0.0f);
    m.row_count.assign(static_cast<std::size_t>(bins), 0);
    heatmaps_.push_back(std::move(m));
  }
}

void AttentionReport::add_to_heatmap(Heatmap& m, std::size_t row, int pos, const float* a) const {
  if (row >= m.tokens) return;
  std::size_t per_cell =
      (m.tokens + static_cast<std::size_t>(m.bins) - 1) / static_cast<std::size_t>(m.bins);
  auto bin = [&](std::size_t i) {
    return std::min<std::size_t>(i / per_cell, static_cast<std::size_t>(m.bins - 1));
  };
  std::size_t r = bin(row);
  float* cells = m.cells.data() + r * static_cast<std::size_t>(m.bins);
  for (int p = 0; p <= pos; ++p) cells[bin(static_cast<std::size_t>(p))] += a[p];
  ++m.row_count[r];
}

void AttentionReport::on_attention(int layer, const BatchRow& row, int heads, const float* probs,
                                   std::size_t stride) {
  if (layer < 0 || layer >= layers_ || heads != heads_) return;
  std::size_t r = rows_seen_[static_cast<std::size_t>(layer)]++;
  if (!options_.include_generated && r >= options_.prompt_rows) return;
  const int pos = row.pos;
  const int w = std::max(options_.window, 1);
  for (int h = 0; h < heads; ++h) {
    const float* a = probs + static_cast<std::size_t>(h) * stride;
    std::size_t i = index({layer, h});
    if (heatmap_of_[i] >= 0)
      add_to_heatmap(heatmaps_[static_cast<std::size_t>(heatmap_of_[i])], r, pos, a);
    if (pos == 0) continue;  // one key: no choice to measure
    double ent = 0, dist = 0, local = 0;
    for (int p = 0; p <= pos; ++p) {
      double x = a[p];
      if (x > 0) ent -= x * std::log(x);
      dist += x * (pos - p);
      if (p > 0 && pos - p < w) local += x;
    }
    Sums& s = sums_[i];
    ++s.rows;
    s.entropy += ent;
    s.entropy_norm += ent / std::log(static_cast<double>(pos) + 1);
    s.distance += dist;
    s.sink += a[0];
    s.local += local;
  }
}

HeadMetrics AttentionReport::metrics(HeadId h) const {
  const Sums& s = sums_[index(h)];
  HeadMetrics m;
  m.rows = s.rows;
  if (s.rows == 0) return m;
  double n = static_cast<double>(s.rows);
  m.entropy = s.entropy / n;
  m.entropy_norm = s.entropy_norm / n;
  m.distance = s.distance / n;
  m.sink_mass = s.sink / n;
  m.local_mass = s.local / n;
  m.far_mass = std::max(0.0, 1.0 - m.sink_mass - m.local_mass);
  m.label = m.sink_mass > options_.sink_threshold     ? HeadLabel::kSink
            : m.local_mass > options_.local_threshold ? HeadLabel::kLocal
                                                      : HeadLabel::kLongRange;
  return m;
}

std::vector<HeadId> AttentionReport::default_heatmap_heads() const {
  std::vector<HeadId> out;
  // Highest value of one metric among heads not already picked.
  auto pick = [&](double HeadMetrics::*field) {
    HeadId best{-1, -1};
    double best_v = -1;
    for (int l = 0; l < layers_; ++l) {
      for (int h = 0; h < heads_; ++h) {
        HeadMetrics m = metrics({l, h});
        if (m.rows == 0 || std::find(out.begin(), out.end(), HeadId{l, h}) != out.end()) continue;
        if (m.*field > best_v) {
          best_v = m.*field;
          best = {l, h};
        }
      }
    }
    if (best.layer >= 0) out.push_back(best);
  };
  pick(&HeadMetrics::sink_mass);
  pick(&HeadMetrics::local_mass);
  pick(&HeadMetrics::far_mass);
  return out;
}

std::vector<HeadId> AttentionReport::chosen_heatmap_heads() const {
  return options_.heatmap_heads.empty() ? default_heatmap_heads() : options_.heatmap_heads;
}

const Heatmap* AttentionReport::heatmap(HeadId h) const {
  if (h.layer < 0 || h.layer >= layers_ || h.head < 0 || h.head >= heads_) return nullptr;
  int i = heatmap_of_[index(h)];
  return i < 0 ? nullptr : &heatmaps_[static_cast<std::size_t>(i)];
}

nlohmann::json AttentionReport::to_json(const std::string& model, std::span<const bpe::TokenId> ids,
                                        const std::vector<std::string>& strings) const {
  nlohmann::json heads = nlohmann::json::array(), layers = nlohmann::json::array();
  std::size_t total[3] = {0, 0, 0}, rows = 0;
  for (int l = 0; l < layers_; ++l) {
    std::size_t count[3] = {0, 0, 0};
    for (int h = 0; h < heads_; ++h) {
      HeadMetrics m = metrics({l, h});
      rows = std::max(rows, m.rows);
      ++count[static_cast<int>(m.label)];
      heads.push_back({{"layer", l},
                       {"head", h},
                       {"label", head_label_name(m.label)},
                       {"entropy", round4(m.entropy)},
                       {"entropy_norm", round4(m.entropy_norm)},
                       {"distance", round4(m.distance)},
                       {"sink_mass", round4(m.sink_mass)},
                       {"local_mass", round4(m.local_mass)},
                       {"far_mass", round4(m.far_mass)}});
    }
    layers.push_back(
        {{"layer", l}, {"sink", count[0]}, {"local", count[1]}, {"long_range", count[2]}});
    for (int k = 0; k < 3; ++k) total[k] += count[k];
  }
  nlohmann::json chosen = nlohmann::json::array();
  for (HeadId h : chosen_heatmap_heads()) chosen.push_back(head_name(h));
  return {{"model", model},
          {"prompt", {{"ids", ids}, {"tokens", strings}}},
          {"rows", options_.include_generated ? "prompt_and_generated" : "prompt"},
          {"query_rows", rows},
          {"layers", layers_},
          {"heads_per_layer", heads_},
          {"window", options_.window},
          {"thresholds", {{"sink", options_.sink_threshold}, {"local", options_.local_threshold}}},
          {"heads", heads},
          {"summary",
           {{"sink", total[0]}, {"local", total[1]}, {"long_range", total[2]}, {"layers", layers}}},
          {"heatmap_heads", chosen}};
}

}  // namespace tok::model
