// The summary under `tok show`: what the text measures (tokens, characters,
// words, bytes per token) and, for a model, what it costs (price, share of
// the context window, KV-cache memory, attention FLOPs). Numbers are formatted
// here once, as label/value rows, so the terminal and the HTML page print the
// same strings.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/number_format.hpp"
#include "show/text_measure.hpp"

namespace tok::show {

struct EncodingFigures {
  std::string encoding;
  std::size_t tokens = 0;
};

// What one model spends on the text; the CLI fills it from the cost module so
// the numbers equal those of `tok count -m` / `tok count --kv`.
struct ModelFigures {
  std::string model;
  std::string encoding;
  std::uint64_t tokens = 0;
  bool estimate = false;            // the model's tokenizer is not public
  std::optional<double> input_usd;  // absent when the catalog has no price
  std::optional<double> usd_per_mtok;
  std::uint64_t context_window = 0;  // tokens; 0 = unknown
  double window_share = 0;           // tokens / context window
  // KV cache and attention: only for models whose KV shape is public.
  std::optional<std::uint64_t> kv_f16;  // bytes at this length, paged
  std::optional<std::uint64_t> kv_q8;
  std::uint64_t kv_block_tokens = 16;
  std::uint64_t kv_paged_tokens = 0;      // tokens rounded up to whole blocks
  std::optional<double> attention_flops;  // one full forward pass over the text
  std::optional<double> flops_at_double;  // the same at twice the length
  std::optional<std::uint64_t> kv_f16_at_double;
};

struct SummaryRow {
  std::string label;
  std::string value;  // formatted for people ("2,036", "1.50 KiB", "$0.10")
  std::string note;   // what the number means, briefly
  // The same value as a plain number for JSON, in base units (tokens, bytes,
  // USD, FLOPs; the window share as a fraction); absent when there is none.
  std::optional<double> number;
};

struct SummarySection {
  std::string title;
  std::vector<SummaryRow> rows;
  std::string sentence;  // a closing remark (which figure grows fastest)
};

std::vector<SummarySection> summary_sections(const TextMeasure& text,
                                             const std::vector<EncodingFigures>& encodings,
                                             const std::optional<ModelFigures>& model);

// The shared number formats (core/number_format.hpp).
using tok::group_digits;
using tok::human_bytes;
using tok::si_scaled;

}  // namespace tok::show
