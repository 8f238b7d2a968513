// ScratchVector<T>: a std::vector whose resize() leaves new elements of a
// trivial type uninitialised (default-initialised instead of value-initialised).
// For scratch buffers sized for the largest batch but written before they are
// read: zeroing them would touch every page up front. The forward pass's
// buffers for a 256-token prefill pass cost a short `tok generate` about 5 ms
// of memset and page faults when zeroed.
#pragma once

#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace tok::core {

template <class T, class Base = std::allocator<T>>
class DefaultInitAllocator : public Base {
  using Traits = std::allocator_traits<Base>;

 public:
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U, typename Traits::template rebind_alloc<U>>;
  };
  using Base::Base;
  DefaultInitAllocator() = default;

  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;  // default-initialise: no zeroing for trivial U
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    Traits::construct(static_cast<Base&>(*this), p, std::forward<Args>(args)...);
  }
};

template <class T>
using ScratchVector = std::vector<T, DefaultInitAllocator<T>>;

}  // namespace tok::core
