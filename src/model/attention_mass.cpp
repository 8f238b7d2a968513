#include "model/attention_mass.hpp"

#include "model/paged_kv_adapter.hpp"

namespace tok::model {

void AttentionMass::on_attention(int layer, const BatchRow& row, int heads, const float* probs,
                                 std::size_t stride) {
  // Called on the thread that runs eval, never from the pool's workers:
  // add_attention is not thread-safe.
  if (auto* paged = dynamic_cast<PagedKvAdapter*>(row.cache)) {
    for (int p = 0; p <= row.pos; ++p) {
      float mass = 0.0f;
      for (int h = 0; h < heads; ++h)
        mass += probs[static_cast<std::size_t>(h) * stride + static_cast<std::size_t>(p)];
      paged->add_attention(p, mass);
    }
  }
  if (next_) next_->on_attention(layer, row, heads, probs, stride);
}

}  // namespace tok::model
