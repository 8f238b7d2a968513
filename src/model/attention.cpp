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

constexpr int kChunk = 16;     // positions whose values are summed per pass
constexpr int kKeyChunk = 32;  // positions of a run of keys scored per pass over the rows

// Positions [a, b) clipped to task t's range.
struct Range {
  int lo, hi;
  bool empty() const { return lo >= hi; }
};
Range clip(const AttentionTask& t, int a, int b) {
  return {std::max(a, t.first), std::min(b, t.pos + 1)};
}

}  // namespace

void attend(const DotKernels& k, const AttentionTask& t, AttentionScratch& s) {
  attend_rows(k, &t, 1, s);
}

void attend_rows(const DotKernels& k, const AttentionTask* ts, int count, AttentionScratch& s) {
  const AttentionTask& t0 = ts[0];  // the fields all rows share
  const KvCache& cache = *t0.cache;
  const AttentionKernels& ak = attention_kernels(k);
  const std::int64_t hd = t0.head_dim;
  int lo = t0.first, hi = t0.pos;
  for (int b = 1; b < count; ++b) lo = std::min(lo, ts[b].first), hi = std::max(hi, ts[b].pos);
  const std::size_t npos = static_cast<std::size_t>(hi) + 1, uhd = static_cast<std::size_t>(hd);
  const std::size_t per_row = static_cast<std::size_t>(t0.group) * npos;
  s.scores.resize(static_cast<std::size_t>(count) * per_row);
  s.row.resize(static_cast<std::size_t>(cache.shape().row()));
  s.krot.resize(uhd);
  s.values.resize(static_cast<std::size_t>(kChunk) * s.row.size());
  auto scores = [&](int b) { return s.scores.data() + static_cast<std::size_t>(b) * per_row; };
  const bool rotate = t0.rope_cs != nullptr;
  const int n_rot = t0.n_rot > 0 ? t0.n_rot : t0.head_dim;
  const std::size_t rot = static_cast<std::size_t>(n_rot);
  // Every key is read (decoded, rotated) once for all the rows, and a run of
  // stored keys is scored a chunk at a time, so each chunk serves every row
  // while it is in cache: a prompt's rows read the cache `count` times less.
  for (int p = lo; p <= hi;) {
    KvSpan span = cache.span(t0.layer, p, false);
    HeadSlice h = head_slice(span.type, t0.kv_head, t0.head_dim, cache.shape().row());
    int end = std::min(hi + 1, p + span.count);
    if (!rotate && span.type == kv::KvType::kF32) {  // the keys as stored
      for (; p < end; p = std::min(end, p + kKeyChunk)) {
        const int e = std::min(end, p + kKeyChunk);
        const std::uint8_t* keys = span.data + h.offset;
        for (int b = 0; b < count; ++b) {
          const Range r = clip(ts[b], p, e);
          if (r.empty()) continue;
          ak.scores(ts[b].q, t0.group, hd, keys + static_cast<std::size_t>(r.lo - p) * span.stride,
                    span.stride, r.hi - r.lo, t0.scale, scores(b) + r.lo, npos);
        }
        span.data += static_cast<std::size_t>(e - p) * span.stride;
      }
      continue;
    }
    for (const std::uint8_t* r = span.data; p < end; ++p, r += span.stride) {
      const float* key = read_head(h, r, s.row.data());
      if (rotate) {
        const float* cs = t0.rope_cs + static_cast<std::size_t>(p) * rot;
        std::copy(key, key + hd, s.krot.data());
        rope_cs(s.krot.data(), n_rot, cs, cs + rot / 2, t0.rope_neox);
        if (t0.rope_attn_factor != 1.0f) scale(s.krot.data(), t0.rope_attn_factor, n_rot);
        key = s.krot.data();
      }
      for (int b = 0; b < count; ++b) {
        if (clip(ts[b], p, p + 1).empty()) continue;
        ak.scores(ts[b].q, t0.group, hd, reinterpret_cast<const std::uint8_t*>(key), 0, 1, t0.scale,
                  scores(b) + p, npos);
      }
    }
  }
  for (int b = 0; b < count; ++b) {
    const AttentionTask& t = ts[b];
    for (int g = 0; g < t.group; ++g) {
      float* att = scores(b) + static_cast<std::size_t>(g) * npos;
      std::fill(att, att + t.first, 0.0f);
      ak.softmax(att + t.first, t.pos - t.first + 1);
      if (t.probs)
        std::copy(att, att + t.pos + 1, t.probs + static_cast<std::size_t>(g) * t.probs_stride);
    }
    std::fill(t.out, t.out + t.group * hd, 0.0f);
  }
  for (int p = lo; p <= hi;) {
    KvSpan span = cache.span(t0.layer, p, true);
    HeadSlice h = head_slice(span.type, t0.kv_head, t0.head_dim, cache.shape().row());
    int end = std::min(hi + 1, p + span.count);
    const std::uint8_t* r = span.data;
    while (p < end) {
      // Up to kChunk positions' values (decoded once), then each row and
      // head adds them up in registers: out[i] += a[p] * v[p][i] in the
      // order of p (the sums stop and resume at chunk edges without a
      // rounding, so the chunking does not change them).
      int n = std::min(kChunk, end - p);
      const float* v[kChunk];
      for (int j = 0; j < n; ++j, r += span.stride) {
        float* buf = s.values.data() + static_cast<std::size_t>(j) * s.row.size();
        v[j] = read_head(h, r, buf);
      }
      for (int b = 0; b < count; ++b) {
        const Range rg = clip(ts[b], p, p + n);
        if (rg.empty()) continue;
        ak.accumulate(scores(b) + rg.lo, npos, t0.group, v + (rg.lo - p), rg.hi - rg.lo, ts[b].out,
                      hd);
      }
      p += n;
    }
  }
}

}  // namespace tok::model
