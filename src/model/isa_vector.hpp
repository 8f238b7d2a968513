#pragma once
// A vector for the files compiled with ISA flags (-mavx2, -mavx512*).
//
// A std::vector<float> member the compiler leaves out of line (resize's
// _M_default_append, say) is a weak definition: the linker keeps one copy for
// the whole program, and if it keeps the AVX-512 one, tok stops with SIGILL on
// a CPU without AVX-512 wherever any vector<float> grows. A specialization that
// names a type with internal linkage has internal linkage itself, so a vector
// over this file-local allocator stays in the file that instantiated it.
// tests/cli/isa_objects.sh checks those objects for weak definitions.

#include <cstddef>
#include <new>
#include <vector>

namespace tok::model {
namespace {  // NOLINT(cert-dcl59-cpp, google-build-namespaces): internal linkage is the point

template <class T>
struct IsaAllocator {
  using value_type = T;
  IsaAllocator() = default;
  template <class U>
  IsaAllocator(const IsaAllocator<U>&) noexcept {}  // NOLINT(google-explicit-constructor)
  // The out-of-line operator new / delete of the C++ library, built for the base ISA.
  T* allocate(std::size_t n) {
    return static_cast<T*>(::operator new (n * sizeof(T), std::align_val_t{64}));
  }
  void deallocate(T* p, std::size_t) noexcept { ::operator delete (p, std::align_val_t{64}); }
  template <class U>
  bool operator==(const IsaAllocator<U>&) const noexcept {
    return true;
  }
};

template <class T>
using IsaVector = std::vector<T, IsaAllocator<T>>;

}  // namespace
}  // namespace tok::model
