// The batched products (DotKernels::gemm, register-tiled in AVX2 and AVX-512
// VNNI) against the scalar dot products, for every weight type, batch sizes
// around the tile shapes and row ranges that leave partial tiles; Q8_0 / Q4_0
// exactly, over odd shapes and every byte value; and the activation quantizer
// (scalar and AVX2 agree bit for bit).
#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <cstring>
#include <random>
#include <type_traits>
#include <vector>

#include "ggml/half.hpp"
#include "ggml/quants.hpp"
#include "kernel_sets.hpp"
#include "model/act_q8_0.hpp"
#include "model/kernels.hpp"

using namespace tok::model;
namespace ggml = tok::ggml;
using tok::model::test::randn;

namespace {

// A (rows, cols) weight matrix of `type` made from random floats.
std::vector<std::uint8_t> make_weights(DType type, std::int64_t rows, std::int64_t cols,
                                       std::mt19937& rng) {
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
          std::uint16_t h = type == DType::kF16 ? ggml::f32_to_fp16(f[i]) : ggml::f32_to_bf16(f[i]);
          std::memcpy(row + 2 * i, &h, 2);
        }
        break;
      case DType::kQ8_0:
        ggml::quantize_row_q8_0(f.data(), reinterpret_cast<ggml::BlockQ8_0*>(row), cols);
        break;
      case DType::kQ4_0:
        ggml::quantize_row_q4_0(f.data(), reinterpret_cast<ggml::BlockQ4_0*>(row), cols);
        break;
      case DType::kQ4_K:
      case DType::kQ6_K:  // random bytes with small super-block scales
        for (std::size_t i = 0; i < rb; ++i) row[i] = static_cast<std::uint8_t>(byte(rng));
        for (std::int64_t b = 0; b < cols / ggml::kQKK; ++b) {
          std::uint16_t d = ggml::f32_to_fp16(0.01f);
          if (type == DType::kQ4_K) {
            std::memcpy(row + b * sizeof(ggml::BlockQ4_K), &d, 2);
            std::memcpy(row + b * sizeof(ggml::BlockQ4_K) + 2, &d, 2);
          } else {
            std::memcpy(row + b * sizeof(ggml::BlockQ6_K) + offsetof(ggml::BlockQ6_K, d), &d, 2);
          }
        }
        break;
      default: tok::ggml::traits(type).from_float(f.data(), row, cols); break;
    }
  }
  return out;
}

// Every SIMD kernel set this CPU can run (AVX2, AVX-512 VNNI).
std::vector<const DotKernels*> simd_kernels() {
  std::vector<const DotKernels*> k;
  if (const DotKernels* p = avx2_kernels()) k.push_back(p);
  if (const DotKernels* p = avx512_kernels()) k.push_back(p);
  if (const DotKernels* p = neon_kernels()) k.push_back(p);
  return k;
}

// `blocks` Q8_0 / Q4_0 blocks with random bytes (every nibble; every Q8_0
// value in -128..127: tok's quantizer writes -127..127, but -128 is a legal
// byte in a file, and the AVX2 kernels once got it wrong) and fp16 scale
// `d`, or a random scale when d is 0.
template <class Block>
void random_blocks(Block* b, std::int64_t blocks, std::uint16_t d, std::mt19937& rng) {
  constexpr bool kQ8 = std::is_same_v<Block, ggml::BlockQ8_0>;
  std::uniform_int_distribution<int> byte(kQ8 ? -128 : 0, kQ8 ? 127 : 255);
  std::uniform_real_distribution<float> scale(-0.1f, 0.1f);
  for (std::int64_t i = 0; i < blocks; ++i) {
    b[i].d = d ? d : ggml::f32_to_fp16(scale(rng));
    for (auto& q : b[i].qs) q = static_cast<std::remove_reference_t<decltype(q)>>(byte(rng));
  }
}

// Row r of a Q8_0 / Q4_0 matrix times activation t, the scalar kernel's sum
// in double, and a bound on the magnitude of what a kernel adds in floats
// (a SIMD lane's partial sum may hold the offset weights, up to 255 + 128
// times |x| for Q8_0 and 15 + 8 for Q4_0: see kernels_avx512.cpp).
struct RefDot {
  double sum = 0, magnitude = 0;
};
RefDot ref_dot(DType type, const std::uint8_t* row, const ggml::BlockQ8_0* x, std::int64_t blocks) {
  RefDot r;
  for (std::int64_t b = 0; b < blocks; ++b) {
    std::int64_t acc = 0, abs_x = 0;
    for (int j = 0; j < ggml::kQK; ++j) abs_x += std::abs(x[b].qs[j]);
    double d = ggml::fp16_to_f32(x[b].d);
    if (type == DType::kQ8_0) {
      const auto& w = reinterpret_cast<const ggml::BlockQ8_0*>(row)[b];
      for (int j = 0; j < ggml::kQK; ++j) acc += w.qs[j] * x[b].qs[j];
      d *= ggml::fp16_to_f32(w.d);
    } else {
      const auto& w = reinterpret_cast<const ggml::BlockQ4_0*>(row)[b];
      for (int j = 0; j < ggml::kQK / 2; ++j) {
        acc +=
            ((w.qs[j] & 0xF) - 8) * x[b].qs[j] + ((w.qs[j] >> 4) - 8) * x[b].qs[j + ggml::kQK / 2];
      }
      d *= ggml::fp16_to_f32(w.d);
    }
    r.sum += d * static_cast<double>(acc);
    r.magnitude += std::fabs(d) * static_cast<double>(abs_x * (type == DType::kQ8_0 ? 383 : 23));
  }
  return r;
}

}  // namespace

TEST_CASE("Q8_0 / Q4_0 gemm and dots: every kernel set, odd shapes, extreme bytes") {
  std::mt19937 rng(13);
  std::uniform_int_distribution<int> act(-127, 127);
  // Unit scales: the float sums of integer block dots stay below 2^24 (up to
  // 25 blocks), so every kernel must give the exact value; random scales:
  // equal up to summation order.
  for (std::uint16_t d : {std::uint16_t{0x3C00}, std::uint16_t{0}}) {
    for (DType type : {DType::kQ8_0, DType::kQ4_0}) {
      for (std::int64_t rows : {1, 3, 5, 7, 13}) {
        // 259 blocks: longer than the decode kernel's chunk of 128 pairs.
        for (std::int64_t blocks : {1, 3, 7, 24, 25, 259}) {
          if (d && blocks > 25) continue;  // unit-scale sums would pass 2^24
          std::int64_t cols = blocks * ggml::kQK;
          TensorView w{type, rows, cols, nullptr};
          std::vector<std::uint8_t> wbytes(w.bytes());
          w.data = wbytes.data();
          for (std::int64_t r = 0; r < rows; ++r) {
            auto* row = wbytes.data() + static_cast<std::size_t>(r) * w.row_bytes();
            if (type == DType::kQ8_0) {
              random_blocks(reinterpret_cast<ggml::BlockQ8_0*>(row), blocks, d, rng);
            } else {
              random_blocks(reinterpret_cast<ggml::BlockQ4_0*>(row), blocks, d, rng);
            }
          }
          for (std::int64_t n :
               {1, 2, 3, 5, 37}) {  // 37: two blocks of prepared tokens, partial tiles
            std::vector<ggml::BlockQ8_0> xq(static_cast<std::size_t>(n * blocks));
            for (auto& b : xq) {
              b.d = d ? d
                      : ggml::f32_to_fp16(std::uniform_real_distribution<float>(0.001f, 0.1f)(rng));
              for (auto& q : b.qs) q = static_cast<std::int8_t>(act(rng));
            }
            std::vector<float> x(static_cast<std::size_t>(n * cols));
            ActBatch a{x.data(), cols, xq.data(), blocks, n};
            for (const DotKernels* k : simd_kernels()) {
              std::vector<float> got(static_cast<std::size_t>(n * rows), NAN);
              std::int64_t split = rows / 2 + 1;  // a row range ending inside a tile
              k->gemm(*k, w, 0, split, a, got.data(), rows);
              k->gemm(*k, w, split, rows, a, got.data(), rows);
              for (std::int64_t t = 0; t < n; ++t) {
                for (std::int64_t r = 0; r < rows; ++r) {
                  CAPTURE(tok::ggml::type_name(type));
                  CAPTURE(static_cast<int>(k->isa));
                  CAPTURE(d);
                  CAPTURE(rows);
                  CAPTURE(blocks);
                  CAPTURE(n);
                  CAPTURE(r);
                  CAPTURE(t);
                  const ggml::BlockQ8_0* xt = xq.data() + t * blocks;
                  RefDot want =
                      ref_dot(type, static_cast<const std::uint8_t*>(w.row(r)), xt, blocks);
                  Activation one{x.data() + t * cols, xt};
                  float g = got[static_cast<std::size_t>(t * rows + r)],
                        dot = dot_row(*k, w, r, one);
                  float s = dot_row(scalar_kernels(), w, r, one);
                  if (d) {
                    CHECK(g == want.sum);
                    CHECK(dot == want.sum);
                    CHECK(s == want.sum);
                  } else {
                    double tol = 1e-6 * want.magnitude;
                    CHECK(std::fabs(g - want.sum) <= tol);
                    CHECK(std::fabs(dot - want.sum) <= tol);
                    CHECK(std::fabs(g - s) <= tol);
                  }
                }
              }
            }
          }
        }
      }
    }
  }
}

TEST_CASE("gemm equals one dot product per row and token, for every type and tile remainder") {
  std::mt19937 rng(11);
  const std::int64_t rows = 13, cols = 512;
  for (DType type : {DType::kF32, DType::kF16, DType::kBF16, DType::kQ8_0, DType::kQ4_0,
                     DType::kQ4_K, DType::kQ6_K, DType::kQ4_1, DType::kQ5_0, DType::kQ5_1,
                     DType::kQ2_K, DType::kQ3_K, DType::kQ5_K}) {
    auto wbytes = make_weights(type, rows, cols, rng);
    TensorView w{type, rows, cols, wbytes.data()};
    for (std::int64_t n : {1, 2, 3, 4, 5, 7}) {
      auto x = randn(static_cast<std::size_t>(n * cols), rng);
      std::vector<ggml::BlockQ8_0> xq(static_cast<std::size_t>(n * cols / ggml::kQK));
      for (std::int64_t t = 0; t < n; ++t)
        quantize_act_q8_0(x.data() + t * cols, xq.data() + t * cols / ggml::kQK, cols);
      ActBatch a{x.data(), cols, wants_q8(type) ? xq.data() : nullptr, cols / ggml::kQK, n};
      std::vector<float> want(static_cast<std::size_t>(n * rows)), got(want.size(), NAN);
      gemm_by_rows(scalar_kernels(), w, 0, rows, a, want.data(), rows);
      for (const DotKernels* k : simd_kernels()) {
        // Two row ranges, the first ending inside a tile.
        k->gemm(*k, w, 0, 6, a, got.data(), rows);
        k->gemm(*k, w, 6, rows, a, got.data(), rows);
        for (std::size_t i = 0; i < want.size(); ++i) {
          CAPTURE(tok::ggml::type_name(type));
          CAPTURE(static_cast<int>(k->isa));
          CAPTURE(n);
          CAPTURE(i);
          CHECK(got[i] ==
                doctest::Approx(want[i]).epsilon(1e-4).scale(std::sqrt(static_cast<double>(cols))));
        }
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
  std::vector<ggml::BlockQ8_0> a(n / ggml::kQK), b(n / ggml::kQK);
  quantize_act_q8_0(x.data(), a.data(), n);
  for (std::int64_t i = 0; i < n / ggml::kQK; ++i) {
    float amax = 0;
    for (int j = 0; j < ggml::kQK; ++j) amax = std::max(amax, std::fabs(x[i * ggml::kQK + j]));
    CHECK(a[i].d == ggml::f32_to_fp16(amax / 127.0f));
    for (int j = 0; j < ggml::kQK; ++j) {
      float v = amax ? x[i * ggml::kQK + j] * (127.0f / amax) : 0.0f;
      CHECK(a[i].qs[j] == static_cast<int>(std::nearbyint(v)));
      CHECK(std::abs(a[i].qs[j]) <= 127);
    }
  }
  CHECK(a[3].qs[1] == 2);
  CHECK(a[3].qs[2] == -4);
  if (const DotKernels* k = avx2_kernels()) {
    k->quantize_q8_0(x.data(), b.data(), n);
    CHECK(std::memcmp(a.data(), b.data(), a.size() * sizeof(ggml::BlockQ8_0)) == 0);
  }
  CHECK((scalar_kernels().quantize_q8_0 == &quantize_act_q8_0));
}
