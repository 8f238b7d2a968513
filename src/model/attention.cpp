#include "model/attention.hpp"

#include <algorithm>

#include "model/ops.hpp"

namespace tok::model {
namespace {

// Where one KV head's values sit in a stored row. Block types whose blocks
// do not align with heads (head_dim not a multiple of 32) decode the whole
// row and skip to the head.
struct HeadSlice {
  kv::KvType type;
  std::size_t offset;  // bytes into the row
  int n;               // values to decode
  std::size_t skip;    // floats into the decoded values
};

HeadSlice head_slice(kv::KvType type, int kv_head, int head_dim, int row) {
  int before = kv_head * head_dim;
  bool aligned = !kv::is_quantized(type) || head_dim % kv::kQuantBlock == 0;
  if (!aligned) return HeadSlice{type, 0, row, static_cast<std::size_t>(before)};
  return HeadSlice{type, before == 0 ? 0 : *kv::row_bytes(type, before), head_dim, 0};
}

const float* read_head(const HeadSlice& h, const std::uint8_t* row, float* buf) {
  if (h.type == kv::KvType::kF32) return reinterpret_cast<const float*>(row + h.offset);
  kv::dequantize_row(h.type, row + h.offset, h.n, buf);
  return buf + h.skip;
}

}  // namespace

void attend(const DotKernels& k, const AttentionTask& t, AttentionScratch& s) {
  const KvCache& cache = *t.cache;
  const std::int64_t hd = t.head_dim;
  const std::size_t npos = static_cast<std::size_t>(t.pos) + 1, uhd = static_cast<std::size_t>(hd);
  s.scores.resize(static_cast<std::size_t>(t.group) * npos);
  s.row.resize(static_cast<std::size_t>(cache.shape().row()));
  s.krot.resize(uhd);
  const bool rotate = t.rope_cs != nullptr;
  for (int p = 0; p <= t.pos;) {
    KvSpan span = cache.span(t.layer, p, false);
    HeadSlice h = head_slice(span.type, t.kv_head, t.head_dim, cache.shape().row());
    int end = std::min(t.pos + 1, p + span.count);
    for (const std::uint8_t* r = span.data; p < end; ++p, r += span.stride) {
      const float* key = read_head(h, r, s.row.data());
      if (rotate) {
        const float* cs = t.rope_cs + static_cast<std::size_t>(p) * uhd;
        std::copy(key, key + hd, s.krot.data());
        rope_cs(s.krot.data(), hd, cs, cs + uhd / 2, t.rope_neox);
        key = s.krot.data();
      }
      for (int g = 0; g < t.group; ++g) {
        s.scores[static_cast<std::size_t>(g) * npos + static_cast<std::size_t>(p)] =
            k.f32(t.q + g * hd, key, hd) * t.scale;
      }
    }
  }
  for (int g = 0; g < t.group; ++g) {
    float* att = s.scores.data() + static_cast<std::size_t>(g) * npos;
    softmax(att, t.pos + 1);
    if (t.probs) std::copy(att, att + npos, t.probs + static_cast<std::size_t>(g) * t.probs_stride);
  }
  std::fill(t.out, t.out + t.group * hd, 0.0f);
  for (int p = 0; p <= t.pos;) {
    KvSpan span = cache.span(t.layer, p, true);
    HeadSlice h = head_slice(span.type, t.kv_head, t.head_dim, cache.shape().row());
    int end = std::min(t.pos + 1, p + span.count);
    for (const std::uint8_t* r = span.data; p < end; ++p, r += span.stride) {
      const float* v = read_head(h, r, s.row.data());
      for (int g = 0; g < t.group; ++g) {
        float a = s.scores[static_cast<std::size_t>(g) * npos + static_cast<std::size_t>(p)];
        float* out = t.out + g * hd;
        for (std::int64_t i = 0; i < hd; ++i) out[i] += a * v[i];
      }
    }
  }
}

}  // namespace tok::model
