// Non-finite weights (issue 42 item 18): a GGUF whose weights hold NaN or
// infinity made every token's logits NaN, and the sampler's argmax then
// picked an id that depended on the kernel set. The model's vectors (norms,
// biases) are checked when it loads; its matrices only when a forward pass
// produces a non-finite value (Forward checks every layer's output, a pass
// over the residual stream): then the layer's weights are searched for the
// tensor that did it, and the error names both.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "model/model.hpp"

namespace tok::model {

// A weight of the model as the file names it (phi3's fused tensors give one
// name to several views).
struct NamedWeight {
  const TensorView* view;
  std::string name;
};

// The weights one stage of the forward pass reads: stage -1 the token
// embeddings, 0 .. n_layers - 1 a layer, n_layers the output head.
std::vector<NamedWeight> stage_weights(const Model& m, std::int64_t stage);

// "layer L", "the token embeddings", "the output layer".
std::string stage_name(const ModelConfig& c, std::int64_t stage);

// The first of the model's vectors (norms, biases: F32 after loading) that
// holds a NaN or an infinity, as an error naming it and the stage it would
// poison; ok when all are finite.
Status check_vector_weights(const Model& m);

}  // namespace tok::model
