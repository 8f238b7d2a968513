// RankQueue: the priority queue of merge_long_piece. Pending pairs are kept
// as their left symbol's byte offset (4 bytes) in one bucket per merge rank;
// the buckets are lists of 256-byte chunks from one pool, so a bucket costs
// what it holds and a drained chunk is reused at once. The non-empty ranks sit
// in a small binary heap: O(log R) per bucket taken, where R is the number of
// distinct ranks pending (tens on a run of one letter), and O(1) per pair.
//
// A rank's bucket is handed out in ascending offset order (the merge order
// BPE needs on ties). Offsets pushed while a merge sweep runs mostly arrive
// ascending; a bucket that received them out of order is sorted once when
// taken. Per call, never shared.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <queue>
#include <vector>

namespace tok::bpe {

class RankQueue {
 public:
  // Adds the pair starting at byte `pos` under `rank`.
  void push(std::uint32_t rank, std::uint32_t pos);
  // The lowest pending rank, or UINT32_MAX when nothing is pending.
  std::uint32_t min_rank() const { return ranks_.empty() ? UINT32_MAX : ranks_.top(); }
  // Takes the lowest rank's bucket for pop(); returns the rank. Not empty().
  std::uint32_t take_min();
  // The next offset of the taken bucket, in ascending order; false when it
  // is drained.
  bool pop(std::uint32_t* pos);
  // Ends a take before its bucket drained (a lower rank arrived): what is
  // left, and what was pushed to it since, stays pending.
  void release();
  bool empty() const { return ranks_.empty(); }

 private:
  static constexpr std::uint32_t kNone = UINT32_MAX;
  static constexpr std::uint32_t kChunkSlots = 63;
  static constexpr std::uint32_t kBlockChunks = 4096;  // 1 MiB of chunks per allocation
  struct Chunk {
    std::uint32_t pos[kChunkSlots];
    std::uint32_t next;  // next chunk of the bucket, or kNone
  };
  struct Bucket {
    std::uint32_t head = kNone, tail = kNone;  // chunk indices
    std::uint32_t head_at = 0, tail_len = 0;   // next slot to pop / slots used in tail
    std::uint32_t last = 0;                    // the last offset pushed
    bool sorted = true;                        // pushed in ascending order
    bool queued = false;                       // its rank is in ranks_
  };
  Chunk& chunk(std::uint32_t c) { return blocks_[c / kBlockChunks][c % kBlockChunks]; }
  std::uint32_t new_chunk();
  void free_chunk(std::uint32_t c);
  std::uint32_t bucket_index(std::uint32_t rank);  // adds an empty bucket if new
  std::size_t slot(std::uint32_t rank) const;
  void append(Bucket& b, std::uint32_t pos);
  void sort(Bucket& b);

  std::vector<std::unique_ptr<Chunk[]>> blocks_;  // (blocks, kBlockChunks)
  std::uint32_t used_ = 0;                        // chunks ever handed out
  std::uint32_t free_ = kNone;                    // free list through Chunk::next
  std::vector<Bucket> buckets_;
  std::vector<std::uint32_t> ranks_of_;  // (buckets): the rank of each bucket
  std::uint32_t taken_ = 0;              // the bucket take_min handed out
  // Open addressing rank -> index in buckets_ (ranks are sparse: up to the
  // vocabulary's size, a few of them pending at a time).
  std::vector<std::uint32_t> keys_, values_;  // (capacity): rank or kNone, bucket index
  std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, std::greater<>> ranks_;
  std::vector<std::uint32_t> sort_buf_;
};

}  // namespace tok::bpe
