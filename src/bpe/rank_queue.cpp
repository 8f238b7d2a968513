#include "bpe/rank_queue.hpp"

#include <algorithm>

#include "bpe/hash.hpp"

namespace tok::bpe {

std::uint32_t RankQueue::new_chunk() {
  std::uint32_t c = free_;
  if (c != kNone) {
    free_ = chunk(c).next;
  } else {
    if (used_ % kBlockChunks == 0)
      // Left uninitialized (every chunk is written before it is read);
      // make_unique_for_overwrite would say so, but libc++ 14 lacks it.
      blocks_.push_back(std::unique_ptr<Chunk[]>(new Chunk[kBlockChunks]));
    c = used_++;
  }
  chunk(c).next = kNone;
  return c;
}

void RankQueue::free_chunk(std::uint32_t c) {
  chunk(c).next = free_;
  free_ = c;
}

std::uint32_t RankQueue::bucket_index(std::uint32_t rank) {
  if (2 * (ranks_of_.size() + 1) > keys_.size()) {  // grow and rehash at half load
    keys_.assign(keys_.empty() ? 64 : 2 * keys_.size(), kNone);
    values_.assign(keys_.size(), 0);
    for (std::uint32_t i = 0; i < ranks_of_.size(); ++i) {
      std::size_t k = slot(ranks_of_[i]);
      keys_[k] = ranks_of_[i];
      values_[k] = i;
    }
  }
  std::size_t k = slot(rank);
  if (keys_[k] == rank) return values_[k];
  keys_[k] = rank;
  values_[k] = static_cast<std::uint32_t>(buckets_.size());
  ranks_of_.push_back(rank);
  buckets_.emplace_back();
  return values_[k];
}

// The slot of rank in keys_, or the empty slot where it would go.
std::size_t RankQueue::slot(std::uint32_t rank) const {
  std::size_t mask = keys_.size() - 1;
  std::size_t k = hash_u64(rank) & mask;
  while (keys_[k] != kNone && keys_[k] != rank) k = (k + 1) & mask;
  return k;
}

void RankQueue::append(Bucket& b, std::uint32_t pos) {
  if (b.tail != kNone && pos < b.last) b.sorted = false;
  if (b.tail == kNone || b.tail_len == kChunkSlots) {
    std::uint32_t c = new_chunk();
    if (b.tail == kNone) {
      b.head = c;
      b.head_at = 0;
    } else {
      chunk(b.tail).next = c;
    }
    b.tail = c;
    b.tail_len = 0;
  }
  chunk(b.tail).pos[b.tail_len++] = pos;
  b.last = pos;
}

void RankQueue::push(std::uint32_t rank, std::uint32_t pos) {
  Bucket& b = buckets_[bucket_index(rank)];
  append(b, pos);
  if (!b.queued) {
    b.queued = true;
    ranks_.push(rank);
  }
}

// Gathers the bucket's offsets, sorts them and puts them back in order.
// Linear in the bucket on top of the sort; the chunks are reused as freed.
void RankQueue::sort(Bucket& b) {
  sort_buf_.clear();
  while (b.head != kNone) {
    Chunk& c = chunk(b.head);
    std::uint32_t end = c.next == kNone ? b.tail_len : kChunkSlots;
    sort_buf_.insert(sort_buf_.end(), c.pos + b.head_at, c.pos + end);
    std::uint32_t next = c.next;
    free_chunk(b.head);
    b.head = next;
    b.head_at = 0;
  }
  b.tail = kNone;
  std::sort(sort_buf_.begin(), sort_buf_.end());
  for (std::uint32_t p : sort_buf_) append(b, p);
  b.sorted = true;
}

std::uint32_t RankQueue::take_min() {
  std::uint32_t rank = ranks_.top();
  ranks_.pop();
  taken_ = bucket_index(rank);
  Bucket& b = buckets_[taken_];
  b.queued = false;
  if (!b.sorted) sort(b);
  return rank;
}

bool RankQueue::pop(std::uint32_t* pos) {
  Bucket& b = buckets_[taken_];
  if (b.head == kNone) return false;
  Chunk& c = chunk(b.head);
  std::uint32_t end = c.next == kNone ? b.tail_len : kChunkSlots;
  *pos = c.pos[b.head_at++];
  if (b.head_at == end) {
    std::uint32_t next = c.next;
    free_chunk(b.head);
    b.head = next;
    b.head_at = 0;
    if (next == kNone) {
      b.tail = kNone;
      b.sorted = true;
    }
  }
  return true;
}

void RankQueue::release() {
  Bucket& b = buckets_[taken_];
  if (b.head != kNone && !b.queued) {
    b.queued = true;
    ranks_.push(ranks_of_[taken_]);
  }
}

}  // namespace tok::bpe
