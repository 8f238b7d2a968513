// The batched products (DotKernels::gemm, register-tiled in AVX2) against the
// scalar dot products, for every weight type, batch sizes around the tile
// shapes and row ranges that leave partial tiles; and the activation
// quantizer (scalar and AVX2 agree bit for bit).
#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <cstring>
#include <random>
#include <vector>

#include "model/kernels.hpp"

using namespace tok::model;

namespace {

std::vector<float> randn(std::size_t n, std::mt19937& rng) {
  std::normal_distribution<float> d(0, 1);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

// A (rows, cols) weight matrix of `type` made from random floats.
std::vector<std::uint8_t> make_weights(DType type, std::int64_t rows, std::int64_t cols, std::mt19937& rng) {
  TensorView shape{type, rows, cols, nullptr};
  std::vector<std::uint8_t> out(shape.bytes());
  std::size_t rb = shape.row_bytes();
  std::uniform_int_distribution<int> byte(0, 255);
  for (std::int64_t r = 0; r < rows; ++r) {
    auto f = randn(static_cast<std::size_t>(cols), rng);
    std::uint8_t* row = out.data() + static_cast<std::size_t>(r) * rb;
    switch (type) {
      case DType::kF32: std::memcpy(row, f.data(), rb); break;
      case DType::kF16:
      case DType::kBF16:
        for (std::int64_t i = 0; i < cols; ++i) {
          std::uint16_t h = type == DType::kF16 ? f32_to_fp16(f[i]) : f32_to_bf16(f[i]);
          std::memcpy(row + 2 * i, &h, 2);
        }
        break;
      case DType::kQ8_0: quantize_row_q8_0(f.data(), reinterpret_cast<BlockQ8_0*>(row), cols); break;
      case DType::kQ4_0: quantize_row_q4_0(f.data(), reinterpret_cast<BlockQ4_0*>(row), cols); break;
      case DType::kQ4_K:
      case DType::kQ6_K:  // random bytes with small super-block scales
        for (std::size_t i = 0; i < rb; ++i) row[i] = static_cast<std::uint8_t>(byte(rng));
        for (std::int64_t b = 0; b < cols / kQKK; ++b) {
          std::uint16_t d = f32_to_fp16(0.01f);
          if (type == DType::kQ4_K) {
            std::memcpy(row + b * sizeof(BlockQ4_K), &d, 2);
            std::memcpy(row + b * sizeof(BlockQ4_K) + 2, &d, 2);
          } else {
            std::memcpy(row + b * sizeof(BlockQ6_K) + offsetof(BlockQ6_K, d), &d, 2);
          }
        }
        break;
    }
  }
  return out;
}

}  // namespace

TEST_CASE("gemm equals one dot product per row and token, for every type and tile remainder") {
  std::mt19937 rng(11);
  const std::int64_t rows = 13, cols = 512;
  for (DType type : {DType::kF32, DType::kF16, DType::kBF16, DType::kQ8_0, DType::kQ4_0, DType::kQ4_K,
                     DType::kQ6_K}) {
    auto wbytes = make_weights(type, rows, cols, rng);
    TensorView w{type, rows, cols, wbytes.data()};
    for (std::int64_t n : {1, 2, 3, 4, 5, 7}) {
      auto x = randn(static_cast<std::size_t>(n * cols), rng);
      std::vector<BlockQ8_0> xq(static_cast<std::size_t>(n * cols / kQK));
      for (std::int64_t t = 0; t < n; ++t) quantize_act_q8_0(x.data() + t * cols, xq.data() + t * cols / kQK, cols);
      ActBatch a{x.data(), cols, wants_q8(type) ? xq.data() : nullptr, cols / kQK, n};
      std::vector<float> want(static_cast<std::size_t>(n * rows)), got(want.size(), NAN);
      gemm_by_rows(scalar_kernels(), w, 0, rows, a, want.data(), rows);
      const DotKernels* simd = avx2_kernels();
      const DotKernels& k = simd ? *simd : scalar_kernels();
      // Two row ranges, the first ending inside a tile.
      k.gemm(k, w, 0, 6, a, got.data(), rows);
      k.gemm(k, w, 6, rows, a, got.data(), rows);
      for (std::size_t i = 0; i < want.size(); ++i) {
        CAPTURE(dtype_name(type));
        CAPTURE(n);
        CAPTURE(i);
        CHECK(got[i] == doctest::Approx(want[i]).epsilon(1e-4).scale(std::sqrt(static_cast<double>(cols))));
      }
    }
  }
}

TEST_CASE("activation quantizer: ggml's rounding, scalar and AVX2 bit for bit") {
  std::mt19937 rng(12);
  const std::int64_t n = 4096;
  auto x = randn(static_cast<std::size_t>(n), rng);
  std::fill(x.begin() + 64, x.begin() + 96, 0.0f);  // an all-zero block
  x[96] = 127.0f;  // scale 1: ties round to even, as _mm256_round_ps does
  x[97] = 2.5f;
  x[98] = -3.5f;
  std::vector<BlockQ8_0> a(n / kQK), b(n / kQK);
  quantize_act_q8_0(x.data(), a.data(), n);
  for (std::int64_t i = 0; i < n / kQK; ++i) {
    float amax = 0;
    for (int j = 0; j < kQK; ++j) amax = std::max(amax, std::fabs(x[i * kQK + j]));
    CHECK(a[i].d == f32_to_fp16(amax / 127.0f));
    for (int j = 0; j < kQK; ++j) {
      float v = amax ? x[i * kQK + j] * (127.0f / amax) : 0.0f;
      CHECK(a[i].qs[j] == static_cast<int>(std::nearbyint(v)));
      CHECK(std::abs(a[i].qs[j]) <= 127);
    }
  }
  CHECK(a[3].qs[1] == 2);
  CHECK(a[3].qs[2] == -4);
  if (const DotKernels* k = avx2_kernels()) {
    k->quantize_q8_0(x.data(), b.data(), n);
    CHECK(std::memcmp(a.data(), b.data(), a.size() * sizeof(BlockQ8_0)) == 0);
  }
  CHECK((scalar_kernels().quantize_q8_0 == &quantize_act_q8_0));
}
