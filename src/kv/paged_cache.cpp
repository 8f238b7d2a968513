#include "kv/paged_cache.hpp"

#include <cstring>

#include "core/number_format.hpp"

namespace tok::kv {
namespace {

std::size_t div_up(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

Error no_free_block(const BlockPool& pool) {
  return make_error("KV cache: no free block (budget {} = {} blocks of {} bytes, all in use)",
                    human_bytes(pool.max_blocks() * pool.block_bytes()), pool.max_blocks(),
                    pool.block_bytes());
}

}  // namespace

Result<PagedKvCache> PagedKvCache::create(const KvConfig& c) {
  if (c.layers <= 0 || c.kv_heads <= 0 || c.head_dim <= 0) {
    return make_error("KV cache: layers ({}), kv_heads ({}) and head_dim ({}) must be positive",
                      c.layers, c.kv_heads, c.head_dim);
  }
  if (c.block_tokens <= 0 || c.block_tokens > 4096) {
    return make_error("KV cache: block size {} tokens: expected 1 to 4096", c.block_tokens);
  }
  TOK_ASSIGN(std::size_t rb, kv::row_bytes(c.type, c.row()));
  std::size_t block_bytes = 2 * static_cast<std::size_t>(c.layers) * c.block_tokens * rb;
  std::size_t max_blocks = 0;
  if (c.budget_bytes != 0) {
    max_blocks = static_cast<std::size_t>(c.budget_bytes / block_bytes);
    if (max_blocks == 0) {
      return make_error(
          "KV budget {} ({} bytes) is smaller than one block ({} bytes = {} tokens of {} bytes)",
          human_bytes(c.budget_bytes), c.budget_bytes, block_bytes, c.block_tokens,
          block_bytes / c.block_tokens);
    }
  }
  return PagedKvCache(c, rb, max_blocks);
}

PagedKvCache::PagedKvCache(const KvConfig& config, std::size_t row_bytes, std::size_t max_blocks)
    : config_(config),
      row_bytes_(row_bytes),
      pool_(2 * static_cast<std::size_t>(config.layers) * config.block_tokens * row_bytes,
            max_blocks),
      scratch_(static_cast<std::size_t>(config.row())) {}

PagedKvCache::Sequence& PagedKvCache::get(SeqId seq) {
  auto it = seqs_.find(seq);
  TOK_ASSERT(it != seqs_.end());
  return it->second;
}

const PagedKvCache::Sequence& PagedKvCache::get(SeqId seq) const {
  auto it = seqs_.find(seq);
  TOK_ASSERT(it != seqs_.end());
  return it->second;
}

SeqId PagedKvCache::new_sequence() {
  SeqId id = next_id_++;
  seqs_.emplace(id, Sequence{});
  seqs_peak_ = std::max(seqs_peak_, seqs_.size());
  return id;
}

SeqId PagedKvCache::fork(SeqId seq) {
  Sequence copy = get(seq);
  for (BlockId b : copy.blocks) pool_.retain(b);
  SeqId id = next_id_++;
  seqs_.emplace(id, std::move(copy));
  seqs_peak_ = std::max(seqs_peak_, seqs_.size());
  return id;
}

SeqId PagedKvCache::fork_prefix(SeqId seq, int n) {
  const Sequence& s = get(seq);
  TOK_ASSERT(n >= 0 && n <= length(seq));
  std::size_t nn = static_cast<std::size_t>(n);
  Sequence copy;
  copy.blocks.assign(s.blocks.begin(),
                     s.blocks.begin() + static_cast<std::ptrdiff_t>(div_up(
                                            nn, static_cast<std::size_t>(config_.block_tokens))));
  copy.orig_pos.assign(s.orig_pos.begin(), s.orig_pos.begin() + n);
  copy.attention.assign(s.attention.begin(), s.attention.begin() + n);
  for (BlockId b : copy.blocks) pool_.retain(b);
  SeqId id = next_id_++;
  seqs_.emplace(id, std::move(copy));
  seqs_peak_ = std::max(seqs_peak_, seqs_.size());
  return id;
}

void PagedKvCache::free(SeqId seq) {
  Sequence& s = get(seq);
  for (BlockId b : s.blocks) pool_.release(b);
  seqs_.erase(seq);
}

std::size_t PagedKvCache::blocks_needed(SeqId seq, int n) const {
  const Sequence& s = get(seq);
  std::size_t bt = static_cast<std::size_t>(config_.block_tokens);
  std::size_t len = s.orig_pos.size();
  std::size_t need = div_up(len + static_cast<std::size_t>(n), bt) - s.blocks.size();
  // A partly filled shared last block is copied before the first write into it.
  if (n > 0 && len % bt != 0 && pool_.refcount(s.blocks.back()) > 1) ++need;
  return need;
}

Status PagedKvCache::make_writable(Sequence& s, std::size_t index) {
  BlockId old = s.blocks[index];
  if (pool_.refcount(old) == 1) return {};
  std::optional<BlockId> fresh = pool_.allocate();
  if (!fresh) return no_free_block(pool_);
  std::memcpy(pool_.data(*fresh), pool_.data(old), pool_.block_bytes());
  pool_.set_fill(*fresh, pool_.fill(old));
  pool_.release(old);
  s.blocks[index] = *fresh;
  return {};
}

Status PagedKvCache::append_token(SeqId seq, int orig_pos) {
  Sequence& s = get(seq);
  std::size_t bt = static_cast<std::size_t>(config_.block_tokens);
  std::size_t slot = s.orig_pos.size();
  if (slot % bt == 0) {
    std::optional<BlockId> b = pool_.allocate();
    if (!b) return no_free_block(pool_);
    s.blocks.push_back(*b);
  } else {
    TOK_TRY(make_writable(s, s.blocks.size() - 1));
  }
  s.orig_pos.push_back(orig_pos);
  s.attention.push_back(0.0f);
  BlockId last = s.blocks.back();
  pool_.set_fill(last, std::max(pool_.fill(last), static_cast<int>(slot % bt) + 1));
  return {};
}

std::size_t PagedKvCache::offset(bool value, int layer, int slot_in_block) const {
  std::size_t half = static_cast<std::size_t>(config_.layers) * config_.block_tokens * row_bytes_;
  return (value ? half : 0) + (static_cast<std::size_t>(layer) * config_.block_tokens +
                               static_cast<std::size_t>(slot_in_block)) *
                                  row_bytes_;
}

const std::uint8_t* PagedKvCache::row_ptr(const Sequence& s, bool value, int layer,
                                          int slot) const {
  int bt = config_.block_tokens;
  return pool_.data(s.blocks[static_cast<std::size_t>(slot / bt)]) +
         offset(value, layer, slot % bt);
}

std::uint8_t* PagedKvCache::row_ptr(Sequence& s, bool value, int layer, int slot) {
  int bt = config_.block_tokens;
  return pool_.data(s.blocks[static_cast<std::size_t>(slot / bt)]) +
         offset(value, layer, slot % bt);
}

Status PagedKvCache::write(SeqId seq, int layer, int slot, const float* k, const float* v) {
  Sequence& s = get(seq);
  TOK_ASSERT(layer >= 0 && layer < config_.layers && slot >= 0 && slot < length(seq));
  TOK_TRY(make_writable(s, static_cast<std::size_t>(slot / config_.block_tokens)));
  quantize_row(config_.type, k, config_.row(), row_ptr(s, false, layer, slot));
  quantize_row(config_.type, v, config_.row(), row_ptr(s, true, layer, slot));
  return {};
}

const float* PagedKvCache::read(SeqId seq, bool value, int layer, int slot, float* buf) const {
  const Sequence& s = get(seq);
  TOK_ASSERT(layer >= 0 && layer < config_.layers && slot >= 0 && slot < length(seq));
  const std::uint8_t* p = row_ptr(s, value, layer, slot);
  // f32 rows are 4-byte aligned: blocks come from new[] and row_bytes is a multiple of 4.
  if (config_.type == KvType::kF32) return reinterpret_cast<const float*>(p);
  dequantize_row(config_.type, p, config_.row(), buf);
  return buf;
}

const float* PagedKvCache::read_row(std::span<const BlockId> table, bool value, int layer, int slot,
                                    float* buf) const {
  std::size_t bt = static_cast<std::size_t>(config_.block_tokens);
  TOK_ASSERT(layer >= 0 && layer < config_.layers && slot >= 0 &&
             static_cast<std::size_t>(slot) < table.size() * bt);
  const std::uint8_t* p =
      pool_.data(table[static_cast<std::size_t>(slot) / bt]) +
      offset(value, layer, static_cast<int>(static_cast<std::size_t>(slot) % bt));
  if (config_.type == KvType::kF32) return reinterpret_cast<const float*>(p);
  dequantize_row(config_.type, p, config_.row(), buf);
  return buf;
}

const float* PagedKvCache::key(SeqId seq, int layer, int slot, float* buf) const {
  return read(seq, false, layer, slot, buf);
}

const float* PagedKvCache::value(SeqId seq, int layer, int slot, float* buf) const {
  return read(seq, true, layer, slot, buf);
}

void PagedKvCache::add_attention(SeqId seq, int slot, float mass) {
  get(seq).attention[static_cast<std::size_t>(slot)] += mass;
}

Status PagedKvCache::move_slot(Sequence& s, int from, int to, const KeyShift& shift) {
  TOK_TRY(make_writable(s, static_cast<std::size_t>(to / config_.block_tokens)));
  for (int l = 0; l < config_.layers; ++l) {
    std::memmove(row_ptr(s, true, l, to), row_ptr(s, true, l, from), row_bytes_);
    if (shift && from != to) {
      // Keys hold RoPE at their old cache position: rotate to the new one.
      dequantize_row(config_.type, row_ptr(s, false, l, from), config_.row(), scratch_.data());
      shift(l, scratch_.data(), from, to);
      quantize_row(config_.type, scratch_.data(), config_.row(), row_ptr(s, false, l, to));
    } else {
      std::memmove(row_ptr(s, false, l, to), row_ptr(s, false, l, from), row_bytes_);
    }
  }
  s.orig_pos[static_cast<std::size_t>(to)] = s.orig_pos[static_cast<std::size_t>(from)];
  s.attention[static_cast<std::size_t>(to)] = s.attention[static_cast<std::size_t>(from)];
  return {};
}

Result<int> PagedKvCache::evict(SeqId seq, const KeyShift& shift) {
  Sequence& s = get(seq);
  std::vector<int> keep = config_.policy.select(s.orig_pos, s.attention);
  int n = static_cast<int>(s.orig_pos.size()), k = static_cast<int>(keep.size());
  if (k == n) return 0;
  // keep is ascending, so keep[i] >= i: moving forward never overwrites a
  // slot still to be read.
  for (int i = 0; i < k; ++i) {
    if (keep[static_cast<std::size_t>(i)] != i)
      TOK_TRY(move_slot(s, keep[static_cast<std::size_t>(i)], i, shift));
  }
  std::size_t bt = static_cast<std::size_t>(config_.block_tokens);
  std::size_t blocks = div_up(static_cast<std::size_t>(k), bt);
  for (std::size_t b = blocks; b < s.blocks.size(); ++b) pool_.release(s.blocks[b]);
  s.blocks.resize(blocks);
  s.orig_pos.resize(static_cast<std::size_t>(k));
  s.attention.resize(static_cast<std::size_t>(k));
  if (!s.blocks.empty() && pool_.refcount(s.blocks.back()) == 1) {
    pool_.set_fill(s.blocks.back(), static_cast<int>((static_cast<std::size_t>(k) - 1) % bt) + 1);
  }
  evicted_ += static_cast<std::uint64_t>(n - k);
  return n - k;
}

KvStats PagedKvCache::stats() const {
  KvStats st;
  st.block_tokens = config_.block_tokens;
  st.blocks_in_use = pool_.in_use();
  st.blocks_peak = pool_.peak();
  st.bytes_per_token = bytes_per_token();
  st.bytes_reserved = st.blocks_in_use * pool_.block_bytes();
  for (std::size_t b = 0; b < pool_.created(); ++b) {
    int refs = pool_.refcount(static_cast<BlockId>(b));
    if (refs == 0) continue;
    st.bytes_used +=
        static_cast<std::uint64_t>(pool_.fill(static_cast<BlockId>(b))) * st.bytes_per_token;
    if (refs > 1) {
      ++st.shared_blocks;
      st.bytes_saved += static_cast<std::uint64_t>(refs - 1) * pool_.block_bytes();
    }
  }
  st.waste_pct = st.bytes_reserved == 0
                     ? 0.0
                     : 100.0 * static_cast<double>(st.bytes_reserved - st.bytes_used) /
                           static_cast<double>(st.bytes_reserved);
  st.bytes_contiguous = static_cast<std::uint64_t>(seqs_peak_) *
                        static_cast<std::uint64_t>(config_.context) * st.bytes_per_token;
  st.budget_bytes = static_cast<std::uint64_t>(pool_.max_blocks()) * pool_.block_bytes();
  st.type = config_.type;
  st.policy = config_.policy;
  st.evicted_tokens = evicted_;
  return st;
}

}  // namespace tok::kv
