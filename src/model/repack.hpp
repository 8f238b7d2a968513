// Q4_0 weight rows rearranged at load into groups of four rows ("Q4_0x4"),
// for the AVX-512 VNNI kernels (kernels_avx512_repack.cpp). Issue #21:
// one-token decode of Q4_0 read each row's blocks as GGUF stores them
// (18-byte blocks, scale first), so every 128 columns of every row cost two
// unaligned loads, a byte permute and a scale permute to put the nibbles in
// register order, and each activation load served one row. llama.cpp's CPU
// backend repacks the same rows into interleaved 8-row blocks (q4_0_8x8).
//
// The layout, for a Q4_0 matrix (rows, cols) with cols a multiple of 128:
// rows [4g, 4g + 4) form group g, kQ4x4GroupBytes(cols) bytes, the space the
// four rows took before; rows past the last whole group stay as they were
// (plain Q4_0 rows, at their usual offsets). A group is cols / 128 units of
// 288 bytes, one per 4 blocks (128 columns) of its rows:
//   bytes   0..255: row m's 64 nibble bytes at 64 m: block k's 16 bytes at
//                   16 k (low nibble: element j, high: element j + 16)
//   bytes 256..287: 16 fp16 scales, index 4 k + m = row m's block k
// so one 512-bit load gives a row's 4 blocks in the order the prepared
// activations have, and one 256-bit load the 16 scales in the lane order
// the kernel's transposing sum leaves (block k, row m in lane 4 k + m).
//
// The bytes are the same as before (a permutation), so the loaded model
// takes no more memory; TensorView::q4_0x4 says which layout a view has.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ggml/blocks.hpp"
#include "model/tensor.hpp"

namespace tok::model {

inline constexpr std::int64_t kQ4x4Rows = 4;        // rows per group
inline constexpr std::int64_t kQ4x4UnitBlocks = 4;  // blocks per row per unit
inline constexpr std::size_t kQ4x4UnitBytes =
    kQ4x4Rows * kQ4x4UnitBlocks * sizeof(ggml::BlockQ4_0);  // 288

// Can this view be repacked: Q4_0, whole units per row, at least one group.
bool q4_0x4_repackable(const TensorView& w);

// Rearranges w's rows in place into the layout above (w.data must be
// writable memory) and returns the view with q4_0x4 set. w must be
// q4_0x4_repackable.
TensorView repack_q4_0x4(const TensorView& w, void* data);

// Row r of a repacked view as plain Q4_0 blocks (cols / 32 of them in out):
// for the kernel sets without a Q4_0x4 kernel, and for row ranges that cut
// a group.
void unpack_row_q4_0x4(const TensorView& w, std::int64_t r, ggml::BlockQ4_0* out);

// Q4_K rows rearranged at load into groups of sixteen ("Q4_Kx16"), for the
// AVX-512 VNNI kernels of kernels_avx512_gemm_q4_k.cpp: one row per 32-bit
// lane. A group is cols / 256 units of 2,304 bytes (the 16 rows' blocks of
// one super-block, the same bytes), unit layout:
//   bytes    0..2047: 32 chunks of 64 bytes; chunk q holds dword q of each
//                     row's qs, row i at 4 i (a Q4_K dword is 4 consecutive
//                     values in its low nibbles and the 4 values 32 later in
//                     its high ones: the order byte dots need)
//   bytes 2048..2239: 3 vectors; vector k holds bytes 4k..4k+3 of each
//                     row's 12 packed 6-bit scales and mins, row i at 4 i
//   bytes 2240..2303: each row's d | dmin << 16 (fp16), row i at 4 i
// Rows past the last whole group stay plain Q4_K rows.
inline constexpr std::int64_t kQ4Kx16Rows = 16;
inline constexpr std::size_t kQ4Kx16UnitBytes = kQ4Kx16Rows * sizeof(ggml::BlockQ4_K);  // 2304
inline constexpr std::size_t kQ4Kx16ScalesAt = 2048, kQ4Kx16DAt = 2240;

// Q4_K with at least one group.
bool q4_kx16_repackable(const TensorView& w);
// Rearranges w's rows in place (w.data writable) and returns the view with
// q4_kx16 set.
TensorView repack_q4_kx16(const TensorView& w, void* data);
// Row r of a repacked view as plain Q4_K blocks (cols / 256 of them).
void unpack_row_q4_kx16(const TensorView& w, std::int64_t r, ggml::BlockQ4_K* out);
inline std::int64_t q4_kx16_grouped_rows(const TensorView& w) {
  return w.q4_kx16 ? w.rows / kQ4Kx16Rows * kQ4Kx16Rows : 0;
}

// Q6_K rows in groups of sixteen ("Q6_Kx16"), likewise: a group is
// cols / 256 units of 3,360 bytes (16 rows' blocks of one super-block):
//   bytes    0..2047: 32 chunks; chunk q holds dword q of each row's ql
//   bytes 2048..3071: 16 chunks; chunk q holds dword q of each row's qh
//   bytes 3072..3327: 4 vectors; vector k holds dword k of each row's 16
//                     int8 sub-block scales
//   bytes 3328..3359: each row's fp16 d, row i at 2 i
inline constexpr std::int64_t kQ6Kx16Rows = 16;
inline constexpr std::size_t kQ6Kx16UnitBytes = kQ6Kx16Rows * sizeof(ggml::BlockQ6_K);  // 3360
inline constexpr std::size_t kQ6Kx16QhAt = 2048, kQ6Kx16ScalesAt = 3072, kQ6Kx16DAt = 3328;

bool q6_kx16_repackable(const TensorView& w);
TensorView repack_q6_kx16(const TensorView& w, void* data);
void unpack_row_q6_kx16(const TensorView& w, std::int64_t r, ggml::BlockQ6_K* out);
inline std::int64_t q6_kx16_grouped_rows(const TensorView& w) {
  return w.q6_kx16 ? w.rows / kQ6Kx16Rows * kQ6Kx16Rows : 0;
}

struct Weights;  // model.hpp

// Repacks, in place, every Q4_0 (Q4_0x4), Q4_K (Q4_Kx16) and Q6_K
// (Q6_Kx16) matrix of the layers and the output (not when tied to
// token_embd, whose rows the embedding lookup reads) that the
// *_repackable functions allow, when the best kernel set has their kernels (AVX-512 VNNI) and
// TOK_NO_REPACK is not set; views of the same tensor
// (same data and shape) are rearranged once and all marked. The weights
// must be in writable memory (formats::GgufFile::owns_data).
void repack_weights(Weights& w);

// Rows in whole groups (the rest are plain Q4_0 rows).
inline std::int64_t q4_0x4_grouped_rows(const TensorView& w) {
  return w.q4_0x4 ? w.rows / kQ4x4Rows * kQ4x4Rows : 0;
}

}  // namespace tok::model
