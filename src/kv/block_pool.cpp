#include "kv/block_pool.hpp"

#include <limits>

#include "core/result.hpp"

namespace tok::kv {

BlockPool::BlockPool(std::size_t block_bytes, std::size_t max_blocks)
    : block_bytes_(block_bytes), max_blocks_(max_blocks) {}

std::size_t BlockPool::available() const {
  if (max_blocks_ == 0) return std::numeric_limits<std::size_t>::max();
  return free_.size() + (max_blocks_ - storage_.size());
}

std::optional<BlockId> BlockPool::allocate() {
  BlockId b;
  if (!free_.empty()) {
    b = free_.back();
    free_.pop_back();
  } else {
    if (max_blocks_ != 0 && storage_.size() >= max_blocks_) return std::nullopt;
    b = static_cast<BlockId>(storage_.size());
    // Zeroed so a block's unwritten slots are deterministic in dumps and COW copies.
    storage_.push_back(std::make_unique<std::uint8_t[]>(block_bytes_));
    ref_.push_back(0);
    fill_.push_back(0);
  }
  TOK_ASSERT(ref_[idx(b)] == 0);
  ref_[idx(b)] = 1;
  fill_[idx(b)] = 0;
  if (in_use() > peak_) peak_ = in_use();
  return b;
}

void BlockPool::retain(BlockId b) {
  TOK_ASSERT(ref_[idx(b)] > 0);
  ++ref_[idx(b)];
}

void BlockPool::release(BlockId b) {
  TOK_ASSERT(ref_[idx(b)] > 0);
  if (--ref_[idx(b)] == 0) {
    fill_[idx(b)] = 0;
    free_.push_back(b);
  }
}

}  // namespace tok::kv
