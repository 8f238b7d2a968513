// Dot-product kernels, one per weight type, chosen once at run time: AVX-512
// VNNI for Q8_0 / Q4_0 (Q4_0 rows repacked in groups of four, repack.hpp),
// the other types on Q8_0 activations below and Q4_K decode (AVX2 for the
// rest) when the CPU has it, else AVX2+FMA (+F16C) when the CPU has them (core/cpu_features.hpp;
// only the kernel files are compiled with the ISA flags, so the binary still runs on any x86-64),
// else portable scalar code. On AArch64 the NEON kernels (kernels_neon.cpp; NEON is in the base
// ISA, so no check). Matrix-vector and matrix-matrix products are loops over these.
//
// Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q2_K, Q3_K and Q5_K weights are multiplied
// with activations quantized to Q8_0 blocks (integer dot products, as
// llama.cpp does; it pairs Q4_1 / Q5_1 with Q8_1 blocks, whose extra
// per-block sum tok's kernels take from the Q8_0 block itself, and the
// K-quants with 256-value Q8_K blocks). Q2_K, Q3_K and Q5_K rows take Q8_K
// blocks instead where the set has kernels for them (scalar, AVX2, AVX-512:
// the sums of llama.cpp's decode). Q4_K and Q6_K rows take Q8_K blocks
// (integer dots, as llama.cpp) where the set has kernels for them (AVX2,
// AVX-512), else the floats (a super-block dequantized in registers);
// prompts multiply them in tiles: AVX-512 VNNI on q8_K values widened to
// int16 (act_q8_k.hpp, kernels_avx512_gemm_k.cpp), AVX2 on decoded rows.
// Every other type is multiplied with the float activations.
//
// `gemm` multiplies a range of weight rows with a batch of activations. The
// AVX2 version works on register tiles (several rows x several tokens), so a
// weight block loaded once serves several tokens (prefill) and an activation
// block loaded once serves several rows (decode).
#pragma once

#include <cstdint>
#include <vector>

#include "ggml/blocks.hpp"
#include "model/tensor.hpp"

namespace tok::model {

enum class Isa { kScalar, kAvx2, kAvx512Vnni, kNeon };

struct DotKernels;
struct ActQ8K;  // act_q8_k.hpp

// n activation rows: the floats (row stride x_stride floats) and, for
// weights that want them (wants_q8), their Q8_0 blocks (row stride xq_stride blocks).
struct ActBatch {
  const float* x = nullptr;
  std::int64_t x_stride = 0;
  const ggml::BlockQ8_0* xq = nullptr;
  std::int64_t xq_stride = 0;
  std::int64_t n = 0;
  // For Q2_K to Q6_K weights where wants_q8_k (act_q8_k.hpp): the same n rows
  // as q8_K; null: the kernels use the floats.
  const ActQ8K* xk = nullptr;
  // Where wants_q8_k_rows: the n rows as Q8_K blocks (row stride xk8_stride).
  const ggml::BlockQ8_K* xk8 = nullptr;
  std::int64_t xk8_stride = 0;
};

// y[t * ldy + r] = (row r of w) . (activation t), for r0 <= r < r1, t < a.n.
using GemmFn = void (*)(const DotKernels& k, const TensorView& w, std::int64_t r0, std::int64_t r1,
                        const ActBatch& a, float* y, std::int64_t ldy);

struct DotKernels {
  Isa isa;
  float (*f32)(const float* w, const float* x, std::int64_t n);
  float (*f16)(const std::uint16_t* w, const float* x, std::int64_t n);
  float (*bf16)(const std::uint16_t* w, const float* x, std::int64_t n);
  float (*q8_0)(const ggml::BlockQ8_0* w, const ggml::BlockQ8_0* x, std::int64_t n);
  float (*q4_0)(const ggml::BlockQ4_0* w, const ggml::BlockQ8_0* x, std::int64_t n);
  float (*q4_k)(const ggml::BlockQ4_K* w, const float* x, std::int64_t n);
  float (*q6_k)(const ggml::BlockQ6_K* w, const float* x, std::int64_t n);
  // Activations to Q8_0 the way ggml's SIMD quantize_row_q8_0 does it
  // (scale 127 / max|x|, round half to even), so that Q8_0 models give
  // llama.cpp's greedy tokens; scalar and AVX2 versions agree bit for bit.
  void (*quantize_q8_0)(const float* x, ggml::BlockQ8_0* y, std::int64_t n);
  GemmFn gemm;
  // Any other type tok computes with: dot_by_dequant over this set's f32 dot.
  float (*dequant_dot)(const ggml::TypeTraits& t, const void* w, const float* x, std::int64_t n);
  // The 32-value types with a minimum or a 5th bit, and the 2-, 3- and
  // 5-bit K-quants (all on Q8_0 activations).
  float (*q4_1)(const ggml::BlockQ4_1* w, const ggml::BlockQ8_0* x, std::int64_t n);
  float (*q5_0)(const ggml::BlockQ5_0* w, const ggml::BlockQ8_0* x, std::int64_t n);
  float (*q5_1)(const ggml::BlockQ5_1* w, const ggml::BlockQ8_0* x, std::int64_t n);
  float (*q2_k)(const ggml::BlockQ2_K* w, const ggml::BlockQ8_0* x, std::int64_t n);
  float (*q3_k)(const ggml::BlockQ3_K* w, const ggml::BlockQ8_0* x, std::int64_t n);
  float (*q5_k)(const ggml::BlockQ5_K* w, const ggml::BlockQ8_0* x, std::int64_t n);
  // Q4_K / Q6_K on Q8_K activations (llama.cpp's decode), where this set
  // has them (AVX2 and AVX-512; null elsewhere: then q4_k / q6_k on the
  // floats). Row by row only: batches of kKQuantTileMinTokens and more keep
  // their tiles (float, or q8_K in int16 with AVX-512 VNNI).
  float (*q4_k_q8k)(const ggml::BlockQ4_K* w, const ggml::BlockQ8_K* x, std::int64_t n);
  float (*q6_k_q8k)(const ggml::BlockQ6_K* w, const ggml::BlockQ8_K* x, std::int64_t n);
  // Q2_K / Q3_K / Q5_K on Q8_K activations, row by row (decode): ggml's
  // integer sums (vec_dot_q2_K_q8_K ...), so one token's products are
  // llama.cpp's up to the order of the float steps. Null where the set has
  // none (NEON: then q2_k / q3_k / q5_k on Q8_0).
  float (*q2_k_q8k)(const ggml::BlockQ2_K* w, const ggml::BlockQ8_K* x, std::int64_t n);
  float (*q3_k_q8k)(const ggml::BlockQ3_K* w, const ggml::BlockQ8_K* x, std::int64_t n);
  float (*q5_k_q8k)(const ggml::BlockQ5_K* w, const ggml::BlockQ8_K* x, std::int64_t n);
  // One 256-value block of activations as q8_K, bit for bit the scalar
  // quantizers of act_q8_k.hpp (which call these where set; null: their own
  // loops): widened to int16 with the scale and the eight d-scaled 32-value
  // sums (the prefill tiles' form), and as a BlockQ8_K (decode's).
  void (*q8_k_block16)(const float* x, std::int16_t* q, float* d, float* sums);
  void (*q8_k_block)(const float* x, ggml::BlockQ8_K* y);
};

// Dequantizes 256 values of w at a time (ggml's reference code) and takes
// their dot product with Dot: the kernel for weight types without one of
// their own. Costs a pass over a 1 KiB buffer per 256 values, about what the
// K-quant kernels spend on unpacking.
template <float (*Dot)(const float*, const float*, std::int64_t)>
float dot_by_dequant(const ggml::TypeTraits& t, const void* w, const float* x, std::int64_t n) {
  constexpr std::int64_t kChunk = 256;  // a multiple of every block size
  float buf[kChunk];
  const auto* p = static_cast<const std::uint8_t*>(w);
  const std::size_t chunk_bytes = kChunk / t.block_size * t.type_size;
  float s = 0;
  std::int64_t i = 0;
  for (; i + kChunk <= n; i += kChunk, p += chunk_bytes) {
    t.to_float(p, buf, kChunk);
    s += Dot(buf, x + i, kChunk);
  }
  if (i < n) {  // a tail of whole 32-value blocks
    t.to_float(p, buf, n - i);
    s += Dot(buf, x + i, n - i);
  }
  return s;
}

// The best kernels this CPU supports (kScalar when TOK_NO_SIMD is set, at
// most kAvx2 when TOK_NO_AVX512 is set).
const DotKernels& best_kernels();
const DotKernels& scalar_kernels();
// The set's name as `tok generate --stats` reports it ("avx512-vnni",
// "avx2", "neon", "scalar").
const char* isa_name(Isa isa);
// nullptr when the CPU lacks AVX2/FMA/F16C.
const DotKernels* avx2_kernels();
// nullptr when the CPU also lacks AVX-512 F/BW/VL/VNNI.
const DotKernels* avx512_kernels();
// nullptr except on AArch64.
const DotKernels* neon_kernels();

// An activation vector in the form the weight type wants: the floats, and
// their Q8_0 blocks when wants_q8(weight type).
struct Activation {
  const float* x = nullptr;              // (n)
  const ggml::BlockQ8_0* xq = nullptr;   // (n / 32) or null
  const ggml::BlockQ8_K* xk8 = nullptr;  // (n / 256) or null: wants_q8_k_rows
};

// Does multiplying by weights of this type want Q8_0 activations?
inline bool wants_q8(DType t) {
  switch (t) {
    case DType::kQ8_0:
    case DType::kQ4_0:
    case DType::kQ4_1:
    case DType::kQ5_0:
    case DType::kQ5_1:
    case DType::kQ2_K:
    case DType::kQ3_K:
    case DType::kQ5_K: return true;
    default: return false;
  }
}

// Batches of at least this many tokens multiply Q4_K / Q6_K weights in
// tiles (rows decoded once for several tokens; q8_K tiles with AVX-512
// VNNI); smaller ones go row by row through dot_row.
inline constexpr std::int64_t kKQuantTileMinTokens = 4;

// Does a product of n tokens with weights of type t want Q8_K activation
// blocks with this kernel set: Q2_K to Q6_K row by row, where the set has
// integer kernels for them on Q8_K (Q2_K, Q3_K and Q5_K then take Q8_K
// blocks instead of wants_q8's Q8_0 ones).
inline bool wants_q8_k_rows(const DotKernels& k, DType t, std::int64_t n) {
  if (n >= kKQuantTileMinTokens) return false;
  switch (t) {
    case DType::kQ2_K: return k.q2_k_q8k != nullptr;
    case DType::kQ3_K: return k.q3_k_q8k != nullptr;
    case DType::kQ4_K: return k.q4_k_q8k != nullptr;
    case DType::kQ5_K: return k.q5_k_q8k != nullptr;
    case DType::kQ6_K: return k.q6_k_q8k != nullptr;
    default: return false;
  }
}

// The scalar kernels of the types above, for the SIMD sets that have none
// of their own (kernels_scalar_types.cpp); the Q8_K ones are also the
// scalar set's.
namespace scalar {
float dot_q4_1(const ggml::BlockQ4_1* w, const ggml::BlockQ8_0* x, std::int64_t n);
float dot_q5_0(const ggml::BlockQ5_0* w, const ggml::BlockQ8_0* x, std::int64_t n);
float dot_q5_1(const ggml::BlockQ5_1* w, const ggml::BlockQ8_0* x, std::int64_t n);
float dot_q2_k(const ggml::BlockQ2_K* w, const ggml::BlockQ8_0* x, std::int64_t n);
float dot_q3_k(const ggml::BlockQ3_K* w, const ggml::BlockQ8_0* x, std::int64_t n);
float dot_q5_k(const ggml::BlockQ5_K* w, const ggml::BlockQ8_0* x, std::int64_t n);
float dot_q2_k_q8k(const ggml::BlockQ2_K* w, const ggml::BlockQ8_K* x, std::int64_t n);
float dot_q3_k_q8k(const ggml::BlockQ3_K* w, const ggml::BlockQ8_K* x, std::int64_t n);
float dot_q5_k_q8k(const ggml::BlockQ5_K* w, const ggml::BlockQ8_K* x, std::int64_t n);
}  // namespace scalar

// Dot product of row r of w with the activation.
float dot_row(const DotKernels& k, const TensorView& w, std::int64_t r, const Activation& a);

// GemmFn as a loop over dot_row: the scalar kernels' gemm, and the AVX2
// kernels' fallback for types without tiles.
void gemm_by_rows(const DotKernels& k, const TensorView& w, std::int64_t r0, std::int64_t r1,
                  const ActBatch& a, float* y, std::int64_t ldy);

}  // namespace tok::model
