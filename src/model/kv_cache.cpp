#include "model/kv_cache.hpp"

#include <algorithm>
#include <cstring>

namespace tok::model {

int KvCells::claim(int pos) {
  if (used_ >= capacity() || pos != used_) return -1;
  pos_[used_] = pos;
  return used_++;
}

void KvCells::clear() {
  std::fill(pos_.begin(), pos_.begin() + used_, -1);
  used_ = 0;
}

ContiguousKvCache::ContiguousKvCache(const KvShape& shape)
    : shape_(shape),
      cells_(shape.capacity),
      k_(static_cast<std::size_t>(shape.layers) * shape.capacity * shape.row()),
      v_(k_.size()) {}

Status ContiguousKvCache::append(int layer, int pos, const float* k, const float* v) {
  int cell = layer == 0 ? cells_.claim(pos) : cells_.find(pos);
  if (cell < 0) {
    if (pos >= shape_.capacity) {
      return make_error("context full: position {} is beyond the context of {} tokens", pos,
                        shape_.capacity);
    }
    return make_error("KV cache: position {} appended out of order in layer {}", pos, layer);
  }
  std::size_t n = static_cast<std::size_t>(shape_.row());
  std::memcpy(k_.data() + offset(layer, cell), k, n * sizeof(float));
  std::memcpy(v_.data() + offset(layer, cell), v, n * sizeof(float));
  return {};
}

}  // namespace tok::model
