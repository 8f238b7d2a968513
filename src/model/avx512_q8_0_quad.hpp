// Four Q8_0 activation blocks in one 512-bit register pair, in the order the
// Q4_0 nibble kernels read their weights (kernels_avx512_vbmi.cpp decode,
// kernels_avx512_repack.cpp's Q4_0x4 tiles). Include only from files compiled
// with AVX-512 F/BW/VL/VNNI; everything here has internal linkage, so each
// such file keeps its own copy (tests/cli/isa_objects.sh).
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "ggml/blocks.hpp"

namespace tok::model {
namespace {  // NOLINT(cert-dcl59-cpp, google-build-namespaces): internal linkage is the point

__m128i load16(const void* p) { return _mm_loadu_si128(static_cast<const __m128i*>(p)); }

struct alignas(64) Q8_0Quad {
  __m512i lo, hi;  // b[k].qs[0..15] and b[k].qs[16..31] at bytes 16k..16k+15
  __m512i corr;  // -8 * (the bytes of lo and hi in lanes 4k..4k+3): Q4_0 nibbles q stand for q - 8
  __m128 d;      // b[k].d as floats
};

Q8_0Quad load_q8_0_quad(const ggml::BlockQ8_0* b) {
  const __m512i eight = _mm512_set1_epi8(8);
  Q8_0Quad q;
  q.lo = _mm512_castsi128_si512(load16(b[0].qs));
  q.lo = _mm512_inserti32x4(q.lo, load16(b[1].qs), 1);
  q.lo = _mm512_inserti32x4(q.lo, load16(b[2].qs), 2);
  q.lo = _mm512_inserti32x4(q.lo, load16(b[3].qs), 3);
  q.hi = _mm512_castsi128_si512(load16(b[0].qs + 16));
  q.hi = _mm512_inserti32x4(q.hi, load16(b[1].qs + 16), 1);
  q.hi = _mm512_inserti32x4(q.hi, load16(b[2].qs + 16), 2);
  q.hi = _mm512_inserti32x4(q.hi, load16(b[3].qs + 16), 3);
  q.corr = _mm512_sub_epi32(
      _mm512_setzero_si512(),
      _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(_mm512_setzero_si512(), eight, q.lo), eight, q.hi));
  alignas(16) std::uint16_t d[8] = {b[0].d, b[1].d, b[2].d, b[3].d, 0, 0, 0, 0};
  q.d = _mm_cvtph_ps(load16(d));
  return q;
}

}  // namespace
}  // namespace tok::model
