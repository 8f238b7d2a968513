// PagedKvAdapter: one sequence of a shared kv::PagedKvCache seen as the
// model's KvCache, so the forward pass runs unchanged on paged, shared,
// quantized or evicting storage. Positions the model appends and reads are
// cache slots (kv/paged_cache.hpp: after eviction the kept tokens are
// compacted), so the model's context limit is the policy's capacity, not the
// text length. Under an evicting policy keys are kept before RoPE and rotated
// to their slot as attention reads them.
#pragma once

#include <span>
#include <vector>

#include "kv/paged_cache.hpp"
#include "model/kv_cache.hpp"

namespace tok::model {

class PagedKvAdapter final : public KvCache {
 public:
  // A new, empty sequence in cache. shape.capacity: positions the model may
  // hold at once (the context length).
  PagedKvAdapter(kv::PagedKvCache& cache, const KvShape& shape);
  // An existing sequence of cache (a fork: samples, beams); text_pos is the
  // text position of the next token it appends.
  PagedKvAdapter(kv::PagedKvCache& cache, kv::SeqId seq, const KvShape& shape, int text_pos);
  // The adapter owns its sequence: destruction frees its blocks.
  ~PagedKvAdapter() override;
  PagedKvAdapter(PagedKvAdapter&& other) noexcept;
  PagedKvAdapter& operator=(PagedKvAdapter&& other) noexcept;
  PagedKvAdapter(const PagedKvAdapter&) = delete;
  PagedKvAdapter& operator=(const PagedKvAdapter&) = delete;

  const KvShape& shape() const override { return shape_; }
  Status append(int layer, int pos, const float* k, const float* v) override;
  const float* key(int layer, int pos) const override;
  const float* value(int layer, int pos) const override;
  const float* key_into(int layer, int pos, float* buf) const override {
    return row(false, layer, pos, buf);
  }
  const float* value_into(int layer, int pos, float* buf) const override {
    return row(true, layer, pos, buf);
  }
  KvSpan span(int layer, int pos, bool value) const override;
  int size() const override { return cache_->length(seq_); }
  bool keys_before_rope() const override { return keys_before_rope_; }
  // Store keys unrotated (see KvCache::keys_before_rope); set before the
  // first append.
  void set_keys_before_rope(bool on) { keys_before_rope_ = on; }
  // Frees the sequence's blocks and starts a new, empty sequence.
  void clear() override;
  // Bytes of the blocks this sequence references (shared blocks counted in full).
  std::size_t bytes() const override;

  kv::PagedKvCache& paged() const { return *cache_; }
  kv::SeqId seq() const { return seq_; }
  // Text position of the next token (equals size() until something is evicted).
  int text_pos() const { return text_pos_; }
  // A second adapter on a fork of this sequence (prefix shared by reference).
  PagedKvAdapter fork() const;
  // Applies the cache's eviction policy (shift re-rotates moved keys; an
  // empty one moves them as they are, for keys kept before RoPE);
  // returns the number of positions evicted.
  Result<int> evict(const kv::KeyShift& shift);
  // Adds attention mass received by a slot (H2O's heavy-hitter score).
  void add_attention(int pos, float mass) { cache_->add_attention(seq_, pos, mass); }

 private:
  void refresh();
  // The attention loop reads every row of every layer per token: this is
  // PagedKvCache::read_row inlined over cached block addresses, with a
  // shift for power-of-two block sizes (tok generate's decode speed on the
  // small default model depends on it; see BENCHMARKS.md, "KV cache").
  const float* row(bool value, int layer, int pos, float* buf) const {
    std::size_t p = static_cast<std::size_t>(pos), b, s;
    if (block_shift_ >= 0) {
      b = p >> block_shift_;
      s = p & (block_tokens_ - 1);
    } else {
      b = p / block_tokens_;
      s = p % block_tokens_;
    }
    TOK_ASSERT(b < blocks_.size());
    const std::uint8_t* r = blocks_[b] + (value ? value_offset_ : 0) +
                            (static_cast<std::size_t>(layer) * block_tokens_ + s) * row_bytes_;
    if (f32_) return reinterpret_cast<const float*>(r);
    kv::dequantize_row(cache_->config().type, r, shape_.row(), buf);
    return buf;
  }

  kv::PagedKvCache* cache_;
  kv::SeqId seq_;
  KvShape shape_;
  int text_pos_ = 0;
  std::span<const kv::BlockId> table_;  // cache_->block_table(seq_), refreshed after each change
  std::vector<const std::uint8_t*>
      blocks_;  // (table_.size()) data of each block, refreshed with it
  std::size_t block_tokens_ = 0, row_bytes_ = 0;
  std::size_t value_offset_ = 0;  // bytes from a block's K half to its V half
  int block_shift_ = -1;          // log2(block_tokens_) when a power of two
  bool f32_ = false;
  bool keys_before_rope_ = false;
  mutable std::vector<float> kbuf_, vbuf_;  // (row) for key()/value() on quantized types
};

}  // namespace tok::model
