// The score reductions the AVX2 and AVX-512 attention kernels share, so that
// a key's score is bit for bit the same whichever set computed it (and
// whether it came in a run of eight or alone). Include only from files
// compiled with -mavx2 or more; internal linkage, so that no file's copy,
// built for a wider ISA, stands in for another's.
#pragma once

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

namespace tok::model {
namespace {  // NOLINT(cert-dcl59-cpp, google-build-namespaces): internal linkage is the point

// Lane k of the result = sum of the 8 lanes of v[k].
inline __m256 reduce8(const __m256* v) {
  __m256 t0 = _mm256_hadd_ps(v[0], v[1]), t1 = _mm256_hadd_ps(v[2], v[3]);
  __m256 t2 = _mm256_hadd_ps(v[4], v[5]), t3 = _mm256_hadd_ps(v[6], v[7]);
  __m256 u0 = _mm256_hadd_ps(t0, t1), u1 = _mm256_hadd_ps(t2, t3);
  return _mm256_add_ps(_mm256_permute2f128_ps(u0, u1, 0x20), _mm256_permute2f128_ps(u0, u1, 0x31));
}

// The sum of v's lanes in reduce8's order.
inline float sum_as_reduce8(__m256 v) {
  __m256 t = _mm256_hadd_ps(v, v);
  __m256 u = _mm256_hadd_ps(t, t);
  return _mm_cvtss_f32(_mm_add_ss(_mm256_castps256_ps128(u), _mm256_extractf128_ps(u, 1)));
}

}  // namespace
}  // namespace tok::model

#endif
