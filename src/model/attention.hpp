// The attention inner loop: one query row (a token at position `pos`)
// against one KV head of its cache, for the `group` query heads that share
// that KV head (grouped-query attention). Forward::attention splits a batch
// into these tasks over the thread pool.
//
// The cache is read a span (a block of back-to-back positions) at a time,
// and each position's key and value are read once for the whole group: a
// q8_0 / q4_0 / f16 cache decodes only this head's slice of the row, so a
// step decodes each stored row once in all (kv_heads slices), where reading
// whole rows per query head decoded it n_heads times. Scores, softmax and
// the weighted sum of values keep the order of a per-head loop, so results
// do not depend on the grouping.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "model/kernels.hpp"
#include "model/kv_cache.hpp"

namespace tok::model {

struct AttentionTask {
  const KvCache* cache = nullptr;
  int layer = 0;
  int pos = 0;  // attends to positions first..pos
  int kv_head = 0;
  int head_dim = 0;
  int group = 1;             // query heads per KV head
  const float* q = nullptr;  // (group, head_dim) rotated queries
  float* out = nullptr;      // (group, head_dim)
  // (group, probs_stride) softmax weights of each head, or null.
  float* probs = nullptr;
  std::size_t probs_stride = 0;
  // (positions, n_rot or head_dim): cos then sin of each position, for caches that
  // keep keys before RoPE (KvCache::keys_before_rope), else null.
  const float* rope_cs = nullptr;
  bool rope_neox = false;
  float scale = 1.0f;  // the model's score scale (1 / sqrt(head_dim) for most)
  int first = 0;       // > 0 on sliding-window layers: earlier positions get weight 0
  int n_rot = 0;       // rotated values at the start of each head (partial rotary); 0: all
  float rope_attn_factor = 1.0f;  // LongRoPE's scaling of the rotated part
};

// Per-thread buffers, grown on demand.
struct AttentionScratch {
  std::vector<float> scores;  // (group, pos + 1)
  std::vector<float> row;     // (kv_heads * head_dim) a decoded row
  std::vector<float> krot;    // (head_dim) a key rotated to its position
  std::vector<float> values;  // (16, kv_heads * head_dim) decoded value rows
};

void attend(const DotKernels& k, const AttentionTask& t, AttentionScratch& s);

// attend for `count` rows of one prompt at once (tasks that share the cache,
// layer, KV head, head size, group, RoPE and scale; each with its own pos,
// first, q, out and probs): each stored key and value is read once for all
// of them. Results are bit for bit those of attend on each task.
void attend_rows(const DotKernels& k, const AttentionTask* tasks, int count, AttentionScratch& s);

}  // namespace tok::model
