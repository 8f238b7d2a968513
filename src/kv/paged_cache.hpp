// PagedKvCache: keys and values of many sequences in fixed-size blocks
// (PagedAttention, Kwon et al. 2023), with prefix sharing by reference
// count and copy-on-write, block-quantized storage and eviction policies.
// It knows nothing of the model: rows are kv_heads * head_dim floats per
// (sequence, layer, slot), and RoPE is reached only through KeyShift.
//
// Slots and positions: slot i of a sequence is its i-th kept token, and the
// cache position (the RoPE position of its stored key) IS the slot index.
// Without eviction slot == text position. After eviction kept tokens are
// compacted to slots 0..k-1 and their keys re-rotated to the new slot index
// by the KeyShift given, or moved as they are when none is (the model keeps
// keys before RoPE under eviction and rotates them as it reads them)
// (StreamingLLM's "positions within the cache"), so the model keeps
// appending at position length(seq) and reads positions 0..length-1 as
// before. original_position(seq, slot) still tells which text token a slot
// holds. See docs/kv.md for why.
//
// Block layout (block_bytes = 2 * layers * block_tokens * row_bytes):
//   K: (layers, block_tokens, row_bytes)  then  V: (layers, block_tokens, row_bytes)
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <unordered_map>
#include <vector>

#include "core/result.hpp"
#include "kv/block_pool.hpp"
#include "kv/eviction_policy.hpp"
#include "kv/kv_stats.hpp"
#include "kv/kv_type.hpp"

namespace tok::kv {

struct KvConfig {
  int layers = 0;
  int kv_heads = 0;
  int head_dim = 0;
  int block_tokens = 16;           // --kv-block
  KvType type = KvType::kF32;      // --kv-type
  std::uint64_t budget_bytes = 0;  // --kv-budget; 0: unlimited
  int context = 0;                 // context length, only for kv_bytes_contiguous
  EvictionPolicy policy;           // --kv-policy
  int row() const { return kv_heads * head_dim; }
};

using SeqId = std::int32_t;

// Re-rotates one stored key row (kv_heads * head_dim floats) of layer from
// cache position from_pos to to_pos. The model supplies it (RoPE by
// to_pos - from_pos); the cache never computes RoPE itself.
using KeyShift = std::function<void(int layer, float* key_row, int from_pos, int to_pos)>;

class PagedKvCache {
 public:
  static Result<PagedKvCache> create(const KvConfig& config);

  const KvConfig& config() const { return config_; }
  std::size_t row_bytes() const { return row_bytes_; }
  std::size_t bytes_per_token() const {
    return 2 * static_cast<std::size_t>(config_.layers) * row_bytes_;
  }

  SeqId new_sequence();
  // A new sequence sharing every block of seq (reference counts + 1).
  SeqId fork(SeqId seq);
  // A new sequence sharing the first n slots of seq (the blocks holding
  // them, by reference count): a prompt prefix two requests have in common.
  // A partly covered last block is shared too and copied on the first
  // write (callers that want exact fill statistics pass whole blocks).
  SeqId fork_prefix(SeqId seq, int n);
  // Drops the sequence's references; blocks at zero return to the free list.
  void free(SeqId seq);
  bool exists(SeqId seq) const { return seqs_.count(seq) != 0; }
  std::size_t sequences() const { return seqs_.size(); }

  int length(SeqId seq) const { return static_cast<int>(get(seq).orig_pos.size()); }
  int original_position(SeqId seq, int slot) const {
    return get(seq).orig_pos[static_cast<std::size_t>(slot)];
  }
  std::span<const BlockId> block_table(SeqId seq) const { return get(seq).blocks; }
  // New blocks appending n tokens to seq would take (including a copy of a shared last block).
  std::size_t blocks_needed(SeqId seq, int n) const;

  // Reserves the next slot for text position orig_pos: allocates a block at
  // a block boundary, copies a shared last block first. Error "no free
  // block" when the budget is spent (nothing changed then).
  Status append_token(SeqId seq, int orig_pos);
  // Stores K and V rows of layer in slot (quantized as config().type);
  // copies the slot's block first if shared. Fails only on "no free block".
  Status write(SeqId seq, int layer, int slot, const float* k, const float* v);
  // Rows of (seq, layer, slot): a pointer into the block for f32, else the
  // row dequantized into buf (row() floats), which is returned.
  const float* key(SeqId seq, int layer, int slot, float* buf) const;
  const float* value(SeqId seq, int layer, int slot, float* buf) const;
  // The same read through a block table obtained from block_table(seq), with
  // no sequence lookup: attention reads every row of every layer per token.
  // The table stays valid until the sequence appends, evicts or is freed.
  const float* read_row(std::span<const BlockId> table, bool value, int layer, int slot,
                        float* buf) const;

  // H2O: attention mass the slot received (summed over layers and heads).
  void add_attention(SeqId seq, int slot, float mass);
  float attention(SeqId seq, int slot) const {
    return get(seq).attention[static_cast<std::size_t>(slot)];
  }

  // Applies config().policy when length(seq) exceeds its capacity: keeps the
  // selected slots, compacted to slots 0..k-1, keys re-rotated by shift (if
  // given) from old slot to new slot. Returns the number of slots evicted.
  Result<int> evict(SeqId seq, const KeyShift& shift);

  KvStats stats() const;
  const BlockPool& pool() const { return pool_; }

 private:
  struct Sequence {
    std::vector<BlockId> blocks;   // block table: slot s lives in blocks[s / block_tokens]
    std::vector<int> orig_pos;     // (length) text position held by each slot
    std::vector<float> attention;  // (length) accumulated attention mass (H2O)
  };
  PagedKvCache(const KvConfig& config, std::size_t row_bytes, std::size_t max_blocks);
  Sequence& get(SeqId seq);
  const Sequence& get(SeqId seq) const;
  // Copies blocks[index] of seq if another sequence shares it.
  Status make_writable(Sequence& s, std::size_t index);
  std::size_t offset(bool value, int layer, int slot_in_block) const;
  const std::uint8_t* row_ptr(const Sequence& s, bool value, int layer, int slot) const;
  std::uint8_t* row_ptr(Sequence& s, bool value, int layer, int slot);
  const float* read(SeqId seq, bool value, int layer, int slot, float* buf) const;
  Status move_slot(Sequence& s, int from, int to, const KeyShift& shift);

  KvConfig config_;
  std::size_t row_bytes_;
  BlockPool pool_;
  std::unordered_map<SeqId, Sequence> seqs_;
  SeqId next_id_ = 0;
  std::size_t seqs_peak_ = 0;
  std::uint64_t evicted_ = 0;   // slots evicted since creation (kv_evicted_tokens)
  std::vector<float> scratch_;  // (row) dequantized key during a shift
};

}  // namespace tok::kv
