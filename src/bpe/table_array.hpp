// TableArray<T>: one array of a MergeTable, either owned (built in memory) or
// a view into a mapped table image that a shared keeper holds open (loaded
// from the cache without copying: a 12 MB o200k image costs page mappings,
// not a copy). Reads go through one pointer, whichever it is: they are the
// encoder's hottest loads, so no branch on the kind.
#pragma once

#include <cstddef>
#include <vector>

namespace tok::bpe {

template <class T>
class TableArray {
 public:
  TableArray() = default;
  TableArray(const TableArray& o)
      : owned_(o.owned_), data_(o.is_view() ? o.data_ : owned_.data()), size_(o.size_) {}
  TableArray& operator=(const TableArray& o) {
    if (this != &o) *this = TableArray(o);
    return *this;
  }
  // A moved vector keeps its buffer, so data_ stays valid.
  TableArray(TableArray&&) noexcept = default;
  TableArray& operator=(TableArray&&) noexcept = default;

  // The owned storage, for building; reads see it only after sync() (until
  // then the array reads as empty, so a missed sync() fails loudly).
  std::vector<T>& own() {
    data_ = nullptr;
    size_ = 0;
    return owned_;
  }
  void sync() {
    data_ = owned_.data();
    size_ = owned_.size();
  }
  // Points at count elements at p (kept alive by the table's keeper).
  void view(const T* p, std::size_t count) {
    owned_ = {};
    data_ = p;
    size_ = count;
  }

  const T* data() const { return data_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }

 private:
  bool is_view() const { return data_ != owned_.data(); }

  std::vector<T> owned_;
  const T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace tok::bpe
