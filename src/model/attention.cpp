#include "model/attention.hpp"

#include <algorithm>

#include "model/attention_kernels.hpp"
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
  bool aligned = head_dim % static_cast<int>(ggml::traits(type).block_size) == 0;
  if (!aligned) return HeadSlice{type, 0, row, static_cast<std::size_t>(before)};
  return HeadSlice{type, before == 0 ? 0 : *kv::row_bytes(type, before), head_dim, 0};
}

const float* read_head(const HeadSlice& h, const std::uint8_t* row, float* buf) {
  if (h.type == kv::KvType::kF32) return reinterpret_cast<const float*>(row + h.offset);
  kv::dequantize_row(h.type, row + h.offset, h.n, buf);
  return buf + h.skip;
}

constexpr int kChunk = 16;  // positions whose values are summed per pass

}  // namespace

void attend(const DotKernels& k, const AttentionTask& t, AttentionScratch& s) {
  const KvCache& cache = *t.cache;
  const AttentionKernels& ak = attention_kernels(k);
  const std::int64_t hd = t.head_dim;
  const std::size_t npos = static_cast<std::size_t>(t.pos) + 1, uhd = static_cast<std::size_t>(hd);
  s.scores.resize(static_cast<std::size_t>(t.group) * npos);
  s.row.resize(static_cast<std::size_t>(cache.shape().row()));
  s.krot.resize(uhd);
  s.values.resize(static_cast<std::size_t>(kChunk) * s.row.size());
  const bool rotate = t.rope_cs != nullptr;
  const int n_rot = t.n_rot > 0 ? t.n_rot : t.head_dim;
  const std::size_t rot = static_cast<std::size_t>(n_rot);
  for (int p = t.first; p <= t.pos;) {
    KvSpan span = cache.span(t.layer, p, false);
    HeadSlice h = head_slice(span.type, t.kv_head, t.head_dim, cache.shape().row());
    int end = std::min(t.pos + 1, p + span.count);
    if (!rotate && span.type == kv::KvType::kF32) {  // the keys as stored: the whole run at once
      ak.scores(t.q, t.group, hd, span.data + h.offset, span.stride, end - p, t.scale, s.scores.data() + p, npos);
      p = end;
      continue;
    }
    for (const std::uint8_t* r = span.data; p < end; ++p, r += span.stride) {
      const float* key = read_head(h, r, s.row.data());
      if (rotate) {
        const float* cs = t.rope_cs + static_cast<std::size_t>(p) * rot;
        std::copy(key, key + hd, s.krot.data());
        rope_cs(s.krot.data(), n_rot, cs, cs + rot / 2, t.rope_neox);
        if (t.rope_attn_factor != 1.0f) scale(s.krot.data(), t.rope_attn_factor, n_rot);
        key = s.krot.data();
      }
      ak.scores(t.q, t.group, hd, reinterpret_cast<const std::uint8_t*>(key), 0, 1, t.scale, s.scores.data() + p,
                npos);
    }
  }
  for (int g = 0; g < t.group; ++g) {
    float* att = s.scores.data() + static_cast<std::size_t>(g) * npos;
    std::fill(att, att + t.first, 0.0f);
    ak.softmax(att + t.first, t.pos - t.first + 1);
    if (t.probs) std::copy(att, att + npos, t.probs + static_cast<std::size_t>(g) * t.probs_stride);
  }
  std::fill(t.out, t.out + t.group * hd, 0.0f);
  for (int p = t.first; p <= t.pos;) {
    KvSpan span = cache.span(t.layer, p, true);
    HeadSlice h = head_slice(span.type, t.kv_head, t.head_dim, cache.shape().row());
    int end = std::min(t.pos + 1, p + span.count);
    const std::uint8_t* r = span.data;
    while (p < end) {
      // Up to kChunk positions' values (decoded once), then each head adds
      // them up in registers: out[i] += a[p] * v[p][i] in the order of p.
      int n = std::min(kChunk, end - p);
      const float* v[kChunk];
      for (int j = 0; j < n; ++j, r += span.stride) {
        float* buf = s.values.data() + static_cast<std::size_t>(j) * s.row.size();
        v[j] = read_head(h, r, buf);
      }
      for (int g = 0; g < t.group; ++g) {
        const float* a = s.scores.data() + static_cast<std::size_t>(g) * npos + static_cast<std::size_t>(p);
        ak.accumulate(a, v, n, t.out + g * hd, hd);
      }
      p += n;
    }
  }
}

}  // namespace tok::model
