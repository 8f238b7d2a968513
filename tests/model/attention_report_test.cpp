// AttentionReport on synthetic attention (exact metrics and labels), then on
// the default model (schema and invariants only: the model gets retrained),
// and the SVG: well-formed enough to parse, escaped, self-contained.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "model/attention_report.hpp"
#include "model/attention_svg.hpp"
#include "model/generator.hpp"

using namespace tok::model;
using tok::ThreadPool;

namespace {

// Feeds n rows (positions 0..n-1) of one layer with `heads` heads; weight(h,
// pos) gives head h's row at position pos.
void feed(AttentionReport& r, int layer, int n, int heads,
          const std::function<std::vector<float>(int, int)>& weight) {
  std::size_t stride = static_cast<std::size_t>(n);
  std::vector<float> probs(static_cast<std::size_t>(heads) * stride);
  for (int pos = 0; pos < n; ++pos) {
    for (int h = 0; h < heads; ++h) {
      std::vector<float> w = weight(h, pos);
      std::copy(w.begin(), w.end(), probs.begin() + static_cast<std::ptrdiff_t>(h * stride));
    }
    r.on_attention(layer, BatchRow{nullptr, pos}, heads, probs.data(), stride);
  }
}

// Head 0: all on position 0. Head 1: uniform. Head 2: the previous token.
std::vector<float> synthetic(int h, int pos) {
  std::vector<float> w(static_cast<std::size_t>(pos) + 1, 0.0f);
  if (h == 0) w[0] = 1;
  if (h == 1) std::fill(w.begin(), w.end(), 1.0f / static_cast<float>(pos + 1));
  if (h == 2) w[static_cast<std::size_t>(std::max(pos - 1, 0))] = 1;
  return w;
}

AttentionReportOptions opts(std::size_t rows) {
  AttentionReportOptions o;
  o.prompt_rows = rows;
  o.expected_rows = rows;
  return o;
}

// Minimal XML well-formedness: every tag closes in order, no raw '&' or '<'
// outside markup, no control characters.
bool well_formed(const std::string& s) {
  std::vector<std::string> stack;
  std::size_t i = s.find("<svg");
  if (i == std::string::npos) return false;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 && c != '\n' && c != '\t') return false;
    if (s[i] == '&') {
      std::size_t semi = s.find(';', i);
      if (semi == std::string::npos || semi - i > 8) return false;
      i = semi + 1;
      continue;
    }
    if (s[i] != '<') {
      ++i;
      continue;
    }
    std::size_t end = s.find('>', i);
    if (end == std::string::npos) return false;
    std::string tag = s.substr(i + 1, end - i - 1);
    if (tag.find('<') != std::string::npos) return false;
    if (tag[0] == '/') {
      if (stack.empty() || stack.back() != tag.substr(1)) return false;
      stack.pop_back();
    } else if (tag.back() != '/') {
      stack.push_back(tag.substr(0, tag.find_first_of(" \n")));
    }
    i = end + 1;
  }
  return stack.empty();
}

}  // namespace

TEST_CASE("attention report: sink, uniform and previous-token heads") {
  const int n = 20;
  AttentionReport r(1, 3, opts(n));
  feed(r, 0, n, 3, synthetic);
  HeadMetrics sink = r.metrics({0, 0}), uni = r.metrics({0, 1}), prev = r.metrics({0, 2});
  CHECK(sink.rows == n - 1);  // row 0 attends to itself only: not counted
  CHECK(sink.label == HeadLabel::kSink);
  CHECK(sink.entropy == doctest::Approx(0));
  CHECK(sink.sink_mass == doctest::Approx(1));
  CHECK(sink.local_mass == doctest::Approx(0));
  // distance: mean of pos over rows 1..19 = 10
  CHECK(sink.distance == doctest::Approx(10));

  // Uniform: entropy ln(pos+1) on each row, so entropy_norm is exactly 1.
  double mean_ln = 0;
  for (int pos = 1; pos < n; ++pos) mean_ln += std::log(pos + 1.0);
  CHECK(uni.entropy == doctest::Approx(mean_ln / (n - 1)).epsilon(1e-5));
  CHECK(uni.entropy_norm == doctest::Approx(1).epsilon(1e-5));
  CHECK(uni.sink_mass + uni.local_mass + uni.far_mass == doctest::Approx(1));

  CHECK(prev.label == HeadLabel::kLocal);
  CHECK(prev.distance == doctest::Approx(1));
  CHECK(prev.entropy == doctest::Approx(0));
  // Row 1's previous token is position 0, the sink: 1/19 of the mass.
  CHECK(prev.sink_mass == doctest::Approx(1.0 / (n - 1)));
  CHECK(prev.local_mass == doctest::Approx(1 - 1.0 / (n - 1)));
}

TEST_CASE("attention report: uniform over a long prompt is long-range; window flag") {
  const int n = 64;
  AttentionReport r(1, 3, opts(n));
  feed(r, 0, n, 3, synthetic);
  CHECK(r.metrics({0, 1}).label == HeadLabel::kLongRange);
  auto o = opts(n);
  o.window = 64;  // everything but position 0 is local now
  AttentionReport wide(1, 3, o);
  feed(wide, 0, n, 3, synthetic);
  CHECK(wide.metrics({0, 1}).label == HeadLabel::kLocal);
  CHECK(wide.metrics({0, 1}).far_mass == doctest::Approx(0).epsilon(1e-6));
}

TEST_CASE("attention report: prompt rows only unless generated rows are asked for") {
  AttentionReport r(1, 3, opts(5));
  feed(r, 0, 10, 3, synthetic);  // rows 5..9 are "generated"
  CHECK(r.metrics({0, 0}).rows == 4);
  auto o = opts(5);
  o.include_generated = true;
  AttentionReport all(1, 3, o);
  feed(all, 0, 10, 3, synthetic);
  CHECK(all.metrics({0, 0}).rows == 9);
}

TEST_CASE("attention report: default heatmap heads and binned matrices") {
  auto o = opts(300);
  o.keep_all_heatmaps = true;
  o.heatmap_cells = 100;
  AttentionReport r(2, 3, o);
  feed(r, 0, 300, 3, synthetic);
  feed(r, 1, 300, 3, synthetic);
  auto heads = r.default_heatmap_heads();
  REQUIRE(heads.size() == 3);
  CHECK(heads[0] == HeadId{0, 0});  // most sink-like
  CHECK(heads[1] == HeadId{0, 2});  // most local
  CHECK(heads[2] == HeadId{0, 1});  // most long-range
  const Heatmap* m = r.heatmap({1, 1});
  REQUIRE(m != nullptr);
  CHECK(m->bins == 100);
  CHECK(m->tokens == 300);
  for (int b = 0; b < m->bins; ++b) {
    double sum = 0;
    for (int c = 0; c < m->bins; ++c) sum += m->cells[static_cast<std::size_t>(b * m->bins + c)];
    CHECK(sum / m->row_count[static_cast<std::size_t>(b)] == doctest::Approx(1).epsilon(1e-4));
  }
  // Only the chosen heads keep matrices.
  auto c = opts(10);
  c.heatmap_heads = {{0, 2}};
  AttentionReport chosen(1, 3, c);
  CHECK(chosen.heatmap({0, 2}) != nullptr);
  CHECK(chosen.heatmap({0, 1}) == nullptr);
  CHECK(chosen.chosen_heatmap_heads() == std::vector<HeadId>{{0, 2}});
}

TEST_CASE("parse_head_list") {
  auto ok = parse_head_list("0.1,3.2,0.1", 4, 4);
  REQUIRE(ok.ok());
  CHECK(*ok == std::vector<HeadId>{{0, 1}, {3, 2}});
  CHECK_FALSE(parse_head_list("9.9", 4, 4).ok());
  CHECK(parse_head_list("9.9").ok());  // no range known yet
  for (const char* bad : {"", "1", "1.", ".1", "a.b", "1.2.3", "1.2,", "-1.0", "1.2 "}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_head_list(bad).ok());
  }
  CHECK(head_name({2, 5}) == "2.5");
}

TEST_CASE("attention svg: well-formed, escaped, self-contained") {
  auto o = opts(12);
  o.keep_all_heatmaps = true;
  AttentionReport r(2, 3, o);
  feed(r, 0, 12, 3, synthetic);
  feed(r, 1, 12, 3, synthetic);
  AttentionSvgInput in{"a <title> & \x01 more",
                       {"<s>", " the", "&amp", "\"q\"", "\xE2\x80\x9C", "b"}};
  std::string svg = render_attention_svg(r, in);
  CHECK(well_formed(svg));
  CHECK(svg.find("&lt;title&gt; &amp;") != std::string::npos);
  CHECK(svg.find("<script") == std::string::npos);
  CHECK(svg.find("http://www.w3.org/2000/svg") != std::string::npos);
  CHECK(svg.find("href") == std::string::npos);
  CHECK(svg.find("Head 0.0 (sink)") != std::string::npos);
  CHECK(svg.find("\xC2\xB7the") != std::string::npos);  // a space shown as a middle dot
}

TEST_CASE("attention report on the default model: schema and invariants") {
  auto m = Model::load(std::string(TOK_VOCAB_DIR_FOR_TESTS) + "/tok-tiny-bible.gguf", true);
  REQUIRE(m.ok());
  auto enc = m->tokenizer().encode(
      "In the beginning God created the heaven and the earth. And the earth was "
      "without form, and void.",
      tok::bpe::SpecialMode::kText);
  REQUIRE(enc.ok());
  std::vector<tok::bpe::TokenId> ids;
  if (m->tokenizer().bos) ids.push_back(*m->tokenizer().bos);
  ids.insert(ids.end(), enc->begin(), enc->end());
  int layers = static_cast<int>(m->config().n_layers),
      heads = static_cast<int>(m->config().n_heads);
  AttentionReport r(layers, heads, opts(ids.size()));
  ThreadPool pool(1);
  GenerateOptions g;
  g.max_tokens = 3;
  g.sampling.greedy = true;
  g.observer = &r;
  REQUIRE(generate(*m, pool, ids, g, {}).ok());
  std::vector<std::string> strings(ids.size(), "t");
  nlohmann::json j = r.to_json(m->path(), ids, strings);
  CHECK(j["layers"] == layers);
  CHECK(j["heads_per_layer"] == heads);
  CHECK(j["window"] == 8);
  CHECK(j["rows"] == "prompt");
  CHECK(j["query_rows"] == ids.size() - 1);  // generated rows not counted
  CHECK(j["prompt"]["ids"].size() == ids.size());
  REQUIRE(j["heads"].size() == static_cast<std::size_t>(layers * heads));
  std::size_t labelled = 0;
  for (const auto& h : j["heads"]) {
    double sum =
        h["sink_mass"].get<double>() + h["local_mass"].get<double>() + h["far_mass"].get<double>();
    CHECK(sum == doctest::Approx(1).epsilon(1e-3));
    CHECK(h["entropy_norm"].get<double>() >= 0);
    CHECK(h["entropy_norm"].get<double>() <= 1.0001);
    CHECK(h["distance"].get<double>() >= 0);
    std::string l = h["label"];
    CHECK((l == "sink" || l == "local" || l == "long_range"));
  }
  for (const char* k : {"sink", "local", "long_range"})
    labelled += j["summary"][k].get<std::size_t>();
  CHECK(labelled == static_cast<std::size_t>(layers * heads));
  CHECK(j["summary"]["layers"].size() == static_cast<std::size_t>(layers));
  CHECK(j["heatmap_heads"].size() >= 1);
}
