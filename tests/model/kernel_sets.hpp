// Helpers shared by the model kernel tests: every kernel set this CPU runs,
// and random normal vectors.
#pragma once

#include <random>
#include <vector>

#include "model/kernels.hpp"

namespace tok::model::test {

// The scalar set and every SIMD set this CPU can run (AVX2, AVX-512 VNNI, NEON).
inline std::vector<const DotKernels*> all_kernels() {
  std::vector<const DotKernels*> k{&scalar_kernels()};
  if (const DotKernels* p = avx2_kernels()) k.push_back(p);
  if (const DotKernels* p = avx512_kernels()) k.push_back(p);
  if (const DotKernels* p = neon_kernels()) k.push_back(p);
  return k;
}

// n values drawn from N(0, s^2).
inline std::vector<float> randn(std::size_t n, std::mt19937& rng, float s = 1) {
  std::normal_distribution<float> d(0, s);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

}  // namespace tok::model::test
