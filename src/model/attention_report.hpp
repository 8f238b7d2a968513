// AttentionReport: an AttentionObserver that summarises what each attention
// head looks at while the model reads a prompt (`tok generate --attn-report`,
// issue #8). Per (layer, head) it averages over query rows: the entropy of
// the softmax weights, the mean distance attended to, the mass on position 0
// (the "attention sink", BOS; Xiao et al. 2023, arXiv:2309.17453) and the
// mass within a local window, and labels the head sink, local or long-range.
// It keeps attention matrices only for the heads chosen for heatmaps, binned
// to at most `heatmap_cells` per side, so memory does not grow with the
// square of the prompt length.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bpe/merge_table.hpp"
#include "core/result.hpp"
#include "model/forward.hpp"

namespace tok::model {

struct HeadId {
  int layer = 0;
  int head = 0;
  bool operator==(const HeadId&) const = default;
};

// "L.H,L.H" (0-based layer and head). Errors name the bad item; ranges are
// checked against layers x heads when both are > 0.
Result<std::vector<HeadId>> parse_head_list(std::string_view spec, int layers = 0, int heads = 0);
std::string head_name(HeadId h);  // "L.H"

enum class HeadLabel { kSink, kLocal, kLongRange };
std::string_view head_label_name(HeadLabel l);  // "sink", "local", "long_range"

struct AttentionReportOptions {
  int window = 8;                // local window: the last W positions, the query included
  double sink_threshold = 0.5;   // sink_mass above this: sink
  double local_threshold = 0.5;  // else local_mass above this: local; else long-range
  // Rows counted: the first prompt_rows rows each layer sees (the prompt's
  // prefill), or every row when include_generated.
  std::size_t prompt_rows = 0;
  bool include_generated = false;
  std::size_t expected_rows =
      0;  // rows the heatmaps are sized for (prompt, or prompt + max tokens)
  std::vector<HeadId>
      heatmap_heads;  // matrices kept for these; empty + keep_all_heatmaps: every head
  bool keep_all_heatmaps = false;
  int heatmap_cells = 128;  // most cells per heatmap side; longer inputs are binned
};

// Means over the counted query rows at cache position >= 1 (row 0 can only
// attend to itself, so it says nothing about the head).
struct HeadMetrics {
  std::size_t rows = 0;
  double entropy = 0;       // nats: -sum_p a_p ln a_p
  double entropy_norm = 0;  // entropy / ln(pos + 1): 0 one position, 1 uniform
  double distance = 0;      // sum_p a_p (pos - p), tokens
  double sink_mass = 0;     // a_0
  double local_mass = 0;    // sum of a_p for pos - W < p <= pos, p >= 1
  double far_mass = 0;      // the rest: 1 - sink_mass - local_mass
  HeadLabel label = HeadLabel::kLongRange;
};

// A head's attention matrix, binned: cell (i, j) = the mean over query rows
// in row bin i of the weight they put on key positions in column bin j (so
// each row sums to 1; with one token per bin it is the weight itself).
struct Heatmap {
  HeadId head;
  int bins = 0;                          // rows and columns
  std::size_t tokens = 0;                // positions spanned (bins == tokens: one cell per token)
  std::vector<float> cells;              // (bins, bins)
  std::vector<std::uint32_t> row_count;  // (bins) query rows summed into each row bin
};

class AttentionReport final : public AttentionObserver {
 public:
  AttentionReport(int layers, int heads, AttentionReportOptions options);

  void on_attention(int layer, const BatchRow& row, int heads, const float* probs,
                    std::size_t stride) override;

  int layers() const { return layers_; }
  int heads() const { return heads_; }
  const AttentionReportOptions& options() const { return options_; }
  HeadMetrics metrics(HeadId h) const;
  // The most sink-like, most local and most long-range heads (distinct
  // where possible): the default heatmaps.
  std::vector<HeadId> default_heatmap_heads() const;
  // options().heatmap_heads, or default_heatmap_heads() when none were given.
  std::vector<HeadId> chosen_heatmap_heads() const;
  // nullptr when no matrix was kept for h.
  const Heatmap* heatmap(HeadId h) const;

  // The report (schema in docs/generate.md, "Attention diagnostics"); strings are
  // the prompt's tokens as the caller wants them shown.
  nlohmann::json to_json(const std::string& model, std::span<const bpe::TokenId> ids,
                         const std::vector<std::string>& strings) const;

 private:
  struct Sums {
    std::size_t rows = 0;
    double entropy = 0, entropy_norm = 0, distance = 0, sink = 0, local = 0;
  };
  std::size_t index(HeadId h) const { return static_cast<std::size_t>(h.layer * heads_ + h.head); }
  void add_to_heatmap(Heatmap& m, std::size_t row, int pos, const float* a) const;

  int layers_, heads_;
  AttentionReportOptions options_;
  std::vector<Sums> sums_;              // (layers * heads)
  std::vector<std::size_t> rows_seen_;  // (layers) rows observed so far
  std::vector<Heatmap> heatmaps_;       // chosen heads
  std::vector<int> heatmap_of_;         // (layers * heads) index into heatmaps_, -1: none
};

}  // namespace tok::model
