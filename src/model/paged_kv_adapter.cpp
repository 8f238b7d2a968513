#include "model/paged_kv_adapter.hpp"

#include <algorithm>
#include <bit>
#include <utility>

namespace tok::model {

PagedKvAdapter::PagedKvAdapter(kv::PagedKvCache& cache, const KvShape& shape)
    : PagedKvAdapter(cache, cache.new_sequence(), shape, 0) {}

PagedKvAdapter::PagedKvAdapter(kv::PagedKvCache& cache, kv::SeqId seq, const KvShape& shape,
                               int text_pos)
    : cache_(&cache),
      seq_(seq),
      shape_(shape),
      text_pos_(text_pos),
      kbuf_(static_cast<std::size_t>(shape.row())),
      vbuf_(static_cast<std::size_t>(shape.row())) {
  const kv::KvConfig& c = cache.config();
  block_tokens_ = static_cast<std::size_t>(c.block_tokens);
  row_bytes_ = cache.row_bytes();
  value_offset_ = static_cast<std::size_t>(c.layers) * block_tokens_ * row_bytes_;
  if ((block_tokens_ & (block_tokens_ - 1)) == 0) block_shift_ = std::countr_zero(block_tokens_);
  f32_ = c.type == kv::KvType::kF32;
  refresh();
}

void PagedKvAdapter::refresh() {
  table_ = cache_->block_table(seq_);
  blocks_.clear();
  for (kv::BlockId b : table_) blocks_.push_back(cache_->pool().data(b));
}

KvSpan PagedKvAdapter::span(int layer, int pos, bool value) const {
  std::size_t p = static_cast<std::size_t>(pos), b = p / block_tokens_, s = p % block_tokens_;
  TOK_ASSERT(pos < size() && b < blocks_.size());
  const std::uint8_t* r = blocks_[b] + (value ? value_offset_ : 0) +
                          (static_cast<std::size_t>(layer) * block_tokens_ + s) * row_bytes_;
  int count = static_cast<int>(std::min(block_tokens_ - s, static_cast<std::size_t>(size() - pos)));
  return KvSpan{r, row_bytes_, count, cache_->config().type};
}

PagedKvAdapter::~PagedKvAdapter() {
  if (cache_) cache_->free(seq_);
}

PagedKvAdapter::PagedKvAdapter(PagedKvAdapter&& o) noexcept
    : cache_(std::exchange(o.cache_, nullptr)),
      seq_(o.seq_),
      shape_(o.shape_),
      text_pos_(o.text_pos_),
      table_(o.table_),
      blocks_(std::move(o.blocks_)),
      block_tokens_(o.block_tokens_),
      row_bytes_(o.row_bytes_),
      value_offset_(o.value_offset_),
      block_shift_(o.block_shift_),
      f32_(o.f32_),
      keys_before_rope_(o.keys_before_rope_),
      kbuf_(std::move(o.kbuf_)),
      vbuf_(std::move(o.vbuf_)) {}

PagedKvAdapter& PagedKvAdapter::operator=(PagedKvAdapter&& o) noexcept {
  if (this != &o) {
    if (cache_) cache_->free(seq_);
    cache_ = std::exchange(o.cache_, nullptr);
    seq_ = o.seq_;
    shape_ = o.shape_;
    text_pos_ = o.text_pos_;
    table_ = o.table_;
    blocks_ = std::move(o.blocks_);
    block_tokens_ = o.block_tokens_;
    row_bytes_ = o.row_bytes_;
    value_offset_ = o.value_offset_;
    block_shift_ = o.block_shift_;
    f32_ = o.f32_;
    keys_before_rope_ = o.keys_before_rope_;
    kbuf_ = std::move(o.kbuf_);
    vbuf_ = std::move(o.vbuf_);
  }
  return *this;
}

Status PagedKvAdapter::append(int layer, int pos, const float* k, const float* v) {
  if (layer == 0) {
    if (pos != cache_->length(seq_)) {
      return make_error("KV cache: position {} appended out of order (next is {})", pos,
                        cache_->length(seq_));
    }
    if (pos >= shape_.capacity) {
      return make_error("context full: position {} is beyond the context of {} tokens", pos,
                        shape_.capacity);
    }
    TOK_TRY(cache_->append_token(seq_, text_pos_));
    ++text_pos_;
    refresh();
  } else if (pos >= cache_->length(seq_)) {
    return make_error("KV cache: position {} of layer {} was not appended in layer 0", pos, layer);
  }
  return cache_->write(seq_, layer, pos, k, v);
}

const float* PagedKvAdapter::key(int layer, int pos) const {
  return row(false, layer, pos, kbuf_.data());
}

const float* PagedKvAdapter::value(int layer, int pos) const {
  return row(true, layer, pos, vbuf_.data());
}

void PagedKvAdapter::clear() {
  cache_->free(seq_);
  seq_ = cache_->new_sequence();
  text_pos_ = 0;
  refresh();
}

std::size_t PagedKvAdapter::bytes() const { return table_.size() * cache_->pool().block_bytes(); }

PagedKvAdapter PagedKvAdapter::fork() const {
  PagedKvAdapter f(*cache_, cache_->fork(seq_), shape_, text_pos_);
  f.keys_before_rope_ = keys_before_rope_;
  return f;
}

Result<int> PagedKvAdapter::evict(const kv::KeyShift& shift) {
  Result<int> n = cache_->evict(seq_, shift);
  refresh();
  return n;
}

}  // namespace tok::model
