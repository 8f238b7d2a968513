// BlockPool: the physical KV memory of a PagedKvCache, as fixed-size blocks
// handed out from a free list (PagedAttention, Kwon et al. 2023,
// arXiv:2309.06180). Blocks are created only when the free list is empty
// and the byte budget allows another, so memory grows with the tokens that
// actually arrive, never with a maximum context length. Each block carries
// a reference count (sequences whose block table points at it) and a fill
// count (slots written), which the statistics read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace tok::kv {

using BlockId = std::int32_t;

class BlockPool {
 public:
  // max_blocks == 0: no cap.
  BlockPool(std::size_t block_bytes, std::size_t max_blocks);

  // A block with reference count 1 and fill 0, or nullopt: no free block
  // (the budget is spent; a scheduler should preempt or queue a sequence).
  std::optional<BlockId> allocate();
  void retain(BlockId b);
  // Drops one reference; at zero the block returns to the free list.
  void release(BlockId b);

  int refcount(BlockId b) const { return ref_[idx(b)]; }
  int fill(BlockId b) const { return fill_[idx(b)]; }
  void set_fill(BlockId b, int n) { fill_[idx(b)] = n; }
  std::uint8_t* data(BlockId b) { return storage_[idx(b)].get(); }
  const std::uint8_t* data(BlockId b) const { return storage_[idx(b)].get(); }

  std::size_t block_bytes() const { return block_bytes_; }
  std::size_t max_blocks() const { return max_blocks_; }
  std::size_t created() const { return storage_.size(); }
  std::size_t in_use() const { return storage_.size() - free_.size(); }
  std::size_t peak() const { return peak_; }
  // Blocks allocate() can still hand out (free list + room under the cap);
  // SIZE_MAX when uncapped.
  std::size_t available() const;
  std::size_t free_listed() const { return free_.size(); }

 private:
  std::size_t idx(BlockId b) const { return static_cast<std::size_t>(b); }
  std::size_t block_bytes_;
  std::size_t max_blocks_;
  std::vector<std::unique_ptr<std::uint8_t[]>> storage_;  // (created) blocks of block_bytes_
  std::vector<int> ref_;                                  // (created) references per block
  std::vector<int> fill_;                                 // (created) slots written per block
  std::vector<BlockId> free_;                             // free list, reused last-in first-out
  std::size_t peak_ = 0;
};

}  // namespace tok::kv
