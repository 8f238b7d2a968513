#include "show/summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace tok::show {

namespace {

SummarySection text_section(const TextMeasure& text, const std::vector<EncodingFigures>& encs) {
  SummarySection s{"Text", {}, {}};
  for (const auto& e : encs) {
    std::string label = encs.size() > 1 ? "tokens (" + e.encoding + ")" : "tokens";
    s.rows.push_back({label, group_digits(e.tokens), "tokens of " + e.encoding, double(e.tokens)});
  }
  s.rows.push_back({"characters", group_digits(text.graphemes),
                    "user-perceived characters (extended grapheme clusters, ICU)",
                    double(text.graphemes)});
  s.rows.push_back({"words", group_digits(text.words), "words and numbers (ICU word segmentation)",
                    double(text.words)});
  s.rows.push_back(
      {"bytes", group_digits(text.bytes), "UTF-8 bytes of the input", double(text.bytes)});
  for (const auto& e : encs) {
    std::string label = encs.size() > 1 ? "bytes/token (" + e.encoding + ")" : "bytes/token";
    std::optional<double> ratio;
    if (e.tokens) ratio = double(text.bytes) / double(e.tokens);
    std::string v = ratio ? fmt::format("{:.2f}", *ratio) : "-";
    s.rows.push_back({label, v, "higher means the vocabulary packs this text more tightly", ratio});
  }
  return s;
}

// Which figure grows fastest, measured by doubling the length: price grows
// exactly ×2, KV memory about ×2 (paging rounds it), attention FLOPs about ×4
// (every token attends to all earlier ones) unless sliding windows cap it.
std::string growth_sentence(const ModelFigures& m) {
  if (!m.attention_flops || !m.flops_at_double || !m.kv_f16 || !m.kv_f16_at_double || !*m.kv_f16) {
    return "Attention FLOPs grow quadratically with length; KV memory and price grow linearly.";
  }
  double flops = *m.flops_at_double / *m.attention_flops;
  double kv = double(*m.kv_f16_at_double) / double(*m.kv_f16);
  std::string measured = fmt::format(
      "twice this text costs ×2.00 in price, ×{:.2f} in KV memory and ×{:.2f} in attention FLOPs",
      kv, flops);
  if (flops > std::max(kv, 2.0) + 0.05) {
    return "Attention FLOPs grow fastest: quadratically with length, while KV memory and price "
           "grow linearly (" +
           measured + ").";
  }
  return "Here all three grow about linearly (sliding-window layers cap attention): " + measured +
         ".";
}

SummarySection model_section(const ModelFigures& m) {
  SummarySection s{"Model " + m.model, {}, {}};
  s.rows.push_back(
      {"tokens", group_digits(m.tokens),
       m.estimate ? "ESTIMATE: the model's tokenizer is not public; counted with " + m.encoding
                  : "with " + m.encoding,
       double(m.tokens)});
  if (m.input_usd) {
    std::string note =
        m.usd_per_mtok ? fmt::format("at {} per million input tokens", format_usd(*m.usd_per_mtok))
                       : std::string("input price");
    s.rows.push_back({"input cost", format_usd(*m.input_usd), note, *m.input_usd});
  }
  if (m.context_window) {
    s.rows.push_back({"context window", fmt::format("{:.2f}%", 100.0 * m.window_share),
                      "of " + group_digits(m.context_window) + " tokens", m.window_share});
  }
  std::string paged = fmt::format("{} tokens paged in blocks of {}",
                                  group_digits(m.kv_paged_tokens), m.kv_block_tokens);
  if (m.kv_f16) {
    s.rows.push_back({"KV cache f16", human_bytes(*m.kv_f16),
                      group_digits(*m.kv_f16) + " bytes; " + paged, double(*m.kv_f16)});
  }
  if (m.kv_q8) {
    s.rows.push_back({"KV cache q8_0", human_bytes(*m.kv_q8),
                      group_digits(*m.kv_q8) + " bytes; " + paged, double(*m.kv_q8)});
  }
  if (m.attention_flops) {
    s.rows.push_back({"attention FLOPs", si_scaled(*m.attention_flops, "FLOP"),
                      "QK^T and attention-weighted V of one full causal forward pass",
                      *m.attention_flops});
  } else {
    s.rows.push_back({"KV cache", "-", "no KV shape in the catalog (weights not public)", {}});
  }
  s.sentence = growth_sentence(m);
  return s;
}

}  // namespace

std::vector<SummarySection> summary_sections(const TextMeasure& text,
                                             const std::vector<EncodingFigures>& encodings,
                                             const std::optional<ModelFigures>& model) {
  std::vector<SummarySection> out{text_section(text, encodings)};
  if (model) out.push_back(model_section(*model));
  return out;
}

}  // namespace tok::show
