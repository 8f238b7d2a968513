// The two inner loops of attention (model/attention.cpp), per ISA: a query
// group's scores against a run of keys, and the softmax-weighted sum of
// values. A 512-token prefill of the 100M random model spent about 30% of
// its time here when these were plain loops in a file compiled for baseline
// x86-64 (SSE2, no FMA): about 6% of its multiply-adds. Kept out of
// DotKernels so the weight kernels' tables stay as they are; chosen from the
// DotKernels' ISA, so TOK_NO_SIMD / TOK_NO_AVX512 apply to both alike.
#pragma once

#include <cstddef>
#include <cstdint>

#include "model/kernels.hpp"

namespace tok::model {

struct AttentionKernels {
  // s[g * s_stride + j] = scale * (q[g * hd ...] . key j), for g < group and
  // j < n; key j is the hd floats at keys + j * key_stride bytes.
  void (*scores)(const float* q, int group, std::int64_t hd, const std::uint8_t* keys,
                 std::size_t key_stride, int n, float scale, float* s, std::size_t s_stride);
  // For each head h < heads: out[h * hd + i] += sum over j < n of
  // a[h * a_stride + j] * v[j][i], for i < hd, adding in the order of j (so
  // every set gives the same sums, however the heads are taken together).
  void (*accumulate)(const float* a, std::size_t a_stride, int heads, const float* const* v, int n,
                     float* out, std::int64_t hd);
  // In-place softmax over n values (ops.hpp's softmax in the scalar set).
  void (*softmax)(float* x, std::int64_t n);
};

// The attention kernels that go with k: AVX2 + FMA for kAvx2, AVX-512 for
// kAvx512Vnni (the same results: the same multiply-adds per lane, in wider
// registers, several heads per load of a key or value).
const AttentionKernels& attention_kernels(const DotKernels& k);
const AttentionKernels& scalar_attention_kernels();
// nullptr when the CPU lacks AVX2/FMA (or off x86-64).
const AttentionKernels* avx2_attention_kernels();
// nullptr without AVX-512 F/VL or AVX2 (or off x86-64).
const AttentionKernels* avx512_attention_kernels();

}  // namespace tok::model
