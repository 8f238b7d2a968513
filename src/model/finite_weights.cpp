#include "model/finite_weights.hpp"

#include <algorithm>

#include "formats/gguf.hpp"
#include "model/forward.hpp"
#include "model/ops.hpp"

namespace tok::model {

std::vector<NamedWeight> stage_weights(const Model& m, std::int64_t stage) {
  const Weights& w = m.weights();
  const ModelConfig& c = m.config();
  std::vector<NamedWeight> out;
  auto add = [&](const TensorView& v, std::string name) {
    if (!v.empty()) out.push_back({&v, std::move(name)});
  };
  if (stage < 0) {
    add(w.token_embd, "token_embd.weight");
    return out;
  }
  if (stage >= c.n_layers) {
    add(w.output_norm, "output_norm.weight");
    add(w.output, w.output.data == w.token_embd.data ? "token_embd.weight" : "output.weight");
    return out;
  }
  const LayerWeights& l = w.layers[static_cast<std::size_t>(stage)];
  const std::string p = "blk." + std::to_string(stage) + ".";
  const bool fused_qkv = m.file().find_tensor(p + "attn_qkv.weight") != nullptr;
  const bool fused_ffn = c.arch == "phi3";  // ffn_up holds gate then up
  add(l.attn_norm, p + "attn_norm.weight");
  add(l.wq, p + (fused_qkv ? "attn_qkv.weight" : "attn_q.weight"));
  add(l.wk, p + (fused_qkv ? "attn_qkv.weight" : "attn_k.weight"));
  add(l.wv, p + (fused_qkv ? "attn_qkv.weight" : "attn_v.weight"));
  add(l.bq, p + "attn_q.bias");
  add(l.bk, p + "attn_k.bias");
  add(l.bv, p + "attn_v.bias");
  add(l.q_norm, p + "attn_q_norm.weight");
  add(l.k_norm, p + "attn_k_norm.weight");
  add(l.wo, p + "attn_output.weight");
  add(l.post_attn_norm, p + "post_attention_norm.weight");
  add(l.ffn_norm, p + "ffn_norm.weight");
  add(l.w_gate, p + (fused_ffn ? "ffn_up.weight" : "ffn_gate.weight"));
  add(l.w_up, p + "ffn_up.weight");
  add(l.w_down, p + "ffn_down.weight");
  add(l.post_ffn_norm, p + "post_ffw_norm.weight");
  return out;
}

std::string stage_name(const ModelConfig& c, std::int64_t stage) {
  if (stage < 0) return "the token embeddings";
  if (stage >= c.n_layers) return "the output layer";
  return "layer " + std::to_string(stage);
}

Status check_vector_weights(const Model& m) {
  const ModelConfig& c = m.config();
  for (std::int64_t stage = 0; stage <= c.n_layers; ++stage) {
    for (const NamedWeight& nw : stage_weights(m, stage)) {
      const TensorView& v = *nw.view;
      if (v.rows != 1 || v.type != DType::kF32)
        continue;  // matrices: checked when they produce NaN
      const float* x = static_cast<const float*>(v.data);
      for (std::int64_t i = 0; i < v.cols; ++i) {
        if (all_finite(x + i, 1)) continue;
        return make_error(
            "{}: weights {} hold {} (value {} of {}): the model would produce NaN at {}", m.path(),
            nw.name, has_nan(x + i, 1) ? "NaN" : "an infinity", i, v.cols, stage_name(c, stage));
      }
    }
  }
  return {};
}

// A matrix's weights are finite when its product with a vector of ones is:
// through the kernels that run it, so rows in a repacked layout are read as
// the forward pass reads them, and a NaN or infinite scale, which poisons
// every product of its block, shows whatever the activations.
Error Forward::nonfinite_error(std::int64_t stage) {
  const ModelConfig& c = model_.config();
  const char* what = nonfinite_nan_ ? "NaN" : "an infinity";
  nonfinite_ = false;  // the probes below multiply finite ones
  std::string where = stage_name(c, stage);
  for (const NamedWeight& nw : stage_weights(model_, stage)) {
    const TensorView& v = *nw.view;
    bool finite = true;
    if (v.rows == 1 && v.type == DType::kF32) {
      finite = all_finite(static_cast<const float*>(v.data), v.cols);
    } else if (stage < 0) {  // embeddings are looked up by row, never multiplied
      std::vector<float> row(static_cast<std::size_t>(v.cols));
      for (std::int64_t r = 0; finite && r < v.rows; ++r) {
        dequantize_row(v.type, v.row(r), row.data(), v.cols);
        finite = all_finite(row.data(), v.cols);
      }
    } else {
      std::vector<float> ones(static_cast<std::size_t>(v.cols), 1.0f),
          y(static_cast<std::size_t>(v.rows));
      matmul(v, ones.data(), 1, y.data());
      finite = all_finite(y.data(), v.rows);
    }
    if (!finite)
      return make_error("the model produced {} at {} (weights {})", what, where, nw.name);
  }
  return make_error("the model produced {} at {} (its weights are finite: values overflowed)", what,
                    where);
}

}  // namespace tok::model
