// KvCache: where the forward pass keeps each layer's keys and values, behind
// a small interface so that a paged cache (src/kv) can replace the
// contiguous one without touching the transformer code. As in llama.cpp,
// cell metadata (which position each cell holds) is kept apart from the
// tensor storage: KvCells is the metadata, ContiguousKvCache the storage.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/result.hpp"
#include "kv/kv_type.hpp"

namespace tok::model {

struct KvShape {
  int layers = 0;
  int kv_heads = 0;
  int head_dim = 0;
  int capacity = 0;                                // positions
  int row() const { return kv_heads * head_dim; }  // floats per position per layer
};

// A run of positions stored back to back: the row of position first + i
// (kv_heads * head_dim values in `type`) starts at data + i * stride bytes.
// The attention loop asks for one span per block of positions instead of
// one row per (position, head): a virtual call per block, and a quantized
// row decoded once per position, only for the head being read.
struct KvSpan {
  const std::uint8_t* data = nullptr;
  std::size_t stride = 0;  // bytes from one position's row to the next
  int count = 0;           // positions in the run
  kv::KvType type = kv::KvType::kF32;
};

class KvCache {
 public:
  virtual ~KvCache() = default;
  virtual const KvShape& shape() const = 0;
  // Stores the key and value rows (kv_heads * head_dim floats each) of
  // position pos in layer. Positions arrive in order, layer 0 first; a
  // position beyond capacity is an error ("context full").
  virtual Status append(int layer, int pos, const float* k, const float* v) = 0;
  // The stored rows of a position appended before (attention reads).
  virtual const float* key(int layer, int pos) const = 0;
  virtual const float* value(int layer, int pos) const = 0;
  // The same rows for callers on several threads: a cache that stores rows
  // quantized dequantizes into buf (row() floats) and returns it; one that
  // stores floats returns its own pointer and ignores buf.
  virtual const float* key_into(int layer, int pos, float* /*buf*/) const {
    return key(layer, pos);
  }
  virtual const float* value_into(int layer, int pos, float* /*buf*/) const {
    return value(layer, pos);
  }
  // The keys (value = false) or values of positions pos, pos+1, ... as
  // long as they lie back to back, at most up to size(); pos < size().
  // The default is one position from key()/value().
  virtual KvSpan span(int layer, int pos, bool value) const {
    const float* r = value ? this->value(layer, pos) : key(layer, pos);
    return KvSpan{reinterpret_cast<const std::uint8_t*>(r), 0, 1, kv::KvType::kF32};
  }
  // Whether keys are stored before RoPE, to be rotated to their position as
  // they are read (PagedKvAdapter under an evicting policy: eviction then
  // moves keys as they are, instead of re-rotating and so requantizing
  // them at every step). Otherwise keys are stored rotated.
  virtual bool keys_before_rope() const { return false; }
  // Number of positions held: the next position to append.
  virtual int size() const = 0;
  // Forgets every position (scoring starts each window from an empty cache).
  virtual void clear() = 0;
  // Bytes of storage allocated.
  virtual std::size_t bytes() const = 0;
};

// Cell metadata: the position each cell holds (-1: free). The contiguous
// cache maps position p to cell p; a paged cache maps it through its pages.
class KvCells {
 public:
  explicit KvCells(int capacity) : pos_(static_cast<std::size_t>(capacity), -1) {}
  int capacity() const { return static_cast<int>(pos_.size()); }
  int used() const { return used_; }
  // Claims the next free cell for pos; -1 when the cache is full.
  int claim(int pos);
  int find(int pos) const { return pos >= 0 && pos < used_ && pos_[pos] == pos ? pos : -1; }
  void clear();

 private:
  std::vector<std::int32_t> pos_;  // (capacity) position held by each cell
  int used_ = 0;
};

// Keys and values in two arrays of shape (layers, capacity, kv_heads * head_dim).
// No command uses it: they all run on kv::PagedKvCache through
// PagedKvAdapter. It stays as the tests' reference cache (tests/model:
// paged_kv_adapter_test, forward_test, kv_sequence_test, batch_test, ...):
// float rows back to back, with no pages, sharing, eviction or
// quantization, so a bug in the paged path cannot hide in the reference it
// is compared with.
class ContiguousKvCache final : public KvCache {
 public:
  explicit ContiguousKvCache(const KvShape& shape);
  const KvShape& shape() const override { return shape_; }
  Status append(int layer, int pos, const float* k, const float* v) override;
  const float* key(int layer, int pos) const override { return k_.data() + offset(layer, pos); }
  const float* value(int layer, int pos) const override { return v_.data() + offset(layer, pos); }
  KvSpan span(int layer, int pos, bool value) const override {
    const float* r = (value ? v_ : k_).data() + offset(layer, pos);
    return KvSpan{reinterpret_cast<const std::uint8_t*>(r),
                  static_cast<std::size_t>(shape_.row()) * sizeof(float), size() - pos,
                  kv::KvType::kF32};
  }
  int size() const override { return cells_.used(); }
  void clear() override { cells_.clear(); }
  std::size_t bytes() const override { return (k_.size() + v_.size()) * sizeof(float); }

 private:
  std::size_t offset(int layer, int cell) const {
    return (static_cast<std::size_t>(layer) * shape_.capacity + cell) * shape_.row();
  }
  KvShape shape_;
  KvCells cells_;
  std::vector<float> k_;  // (layers, capacity, kv_heads * head_dim)
  std::vector<float> v_;  // (layers, capacity, kv_heads * head_dim)
};

}  // namespace tok::model
