// AttentionMass: H2O's heavy-hitter score (Zhang et al. 2023,
// arXiv:2306.14048). An AttentionObserver that adds, for every row of a
// batch and every layer, the attention each cached position received
// (softmax weights summed over heads) to that position's slot of the row's
// paged cache, so that `--kv-policy h2o:H,window:W` keeps the H positions
// that were attended to most. Rows whose cache is not a PagedKvAdapter are
// skipped. Another observer (e.g. `--attn-report`) can be chained after it.
#pragma once

#include "model/forward.hpp"

namespace tok::model {

class AttentionMass final : public AttentionObserver {
 public:
  // next: also sees every call (nullptr: none). Not owned.
  explicit AttentionMass(AttentionObserver* next = nullptr) : next_(next) {}
  void on_attention(int layer, const BatchRow& row, int heads, const float* probs,
                    std::size_t stride) override;

 private:
  AttentionObserver* next_;
};

}  // namespace tok::model
