// Q2_K / Q3_K / Q4_K / Q5_K / Q6_K prefill over q8_K activations (act_q8_k.hpp and the AVX-512
// tiles of kernels_avx512_gemm_k.cpp): the quantizer on exact tiny blocks,
// then the tiles against a double-precision product of the dequantized
// weights and the dequantized activations, on odd shapes (rows that leave
// partial 4-row tiles and 32-row blocks, 4..17 tokens, K = 256..4096), and
// against the float kernels within the activation quantization's error.
// Decode (one token, Q8_K blocks, rows four at a time in the AVX-512 set)
// against the same reference.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernel_sets.hpp"
#include "model/act_q8_k.hpp"
#include "model/kernels.hpp"

using namespace tok::model;
namespace ggml = tok::ggml;
using tok::model::test::randn;

namespace {}  // namespace

TEST_CASE("q8_K activations: ggml's scale, rounding, cap and 32- and 16-value sums") {
  std::vector<float> x(512);
  for (int i = 0; i < 256; ++i) x[i] = static_cast<float>(i - 100) * 0.5f;  // largest: +77.5
  // Block 2 all zero.
  ActQ8K a;
  quantize_act_q8_k(x.data(), 512, 1, 512, a);
  float d = 77.5f / -127.f;  // 1 / iscale, iscale = -127 / max
  CHECK(a.d[0] == doctest::Approx(d).epsilon(1e-7));
  CHECK(a.q[255] == -127);
  CHECK(a.q[100] == 0);
  CHECK(a.q[0] == static_cast<std::int16_t>(std::lrint(-127.f / 77.5f * -50.f)));  // 82
  CHECK(a.q[0] == 82);
  int s = 0;
  for (int i = 32; i < 64; ++i) s += a.q[i];
  CHECK(a.sums[1] == doctest::Approx(a.d[0] * s));
  CHECK(a.d[1] == 0);
  CHECK(a.q[300] == 0);
  CHECK(a.sums[9] == 0);
  s = 0;
  for (int i = 16; i < 32; ++i) s += a.q[i];
  CHECK(a.sums16[1] == doctest::Approx(a.d[0] * s));
  s = 0;
  for (int i = 240; i < 256; ++i) s += a.q[i];
  CHECK(a.sums16[15] == doctest::Approx(a.d[0] * s));
  CHECK(a.sums16[17] == 0);
}

TEST_CASE(
    "Q2_K / Q3_K / Q4_K / Q5_K / Q6_K gemm over q8_K activations equals a double-precision "
    "reference") {
  const DotKernels* k = avx512_kernels();
  if (!k) {
    MESSAGE("no AVX-512 VNNI on this CPU: the q8_K tiles are not used");
    return;
  }
  std::mt19937 rng(5);
  for (DType type : {DType::kQ2_K, DType::kQ3_K, DType::kQ4_K, DType::kQ5_K, DType::kQ6_K}) {
    for (std::int64_t cols : {256, 768, 4096}) {
      for (std::int64_t rows : {1, 6, 37, 70}) {
        TensorView w{type, rows, cols, nullptr};
        std::vector<std::uint8_t> bytes(w.bytes());
        w.data = bytes.data();
        std::vector<float> wf(static_cast<std::size_t>(rows * cols));
        for (std::int64_t r = 0; r < rows; ++r) {
          auto f = randn(static_cast<std::size_t>(cols), rng);
          tok::ggml::traits(type).from_float(f.data(), bytes.data() + r * w.row_bytes(), cols);
          dequantize_row(type, w.row(r), wf.data() + r * cols, cols);
        }
        for (std::int64_t n : {4, 5, 17}) {
          CHECK(wants_q8_k(*k, type, n));
          auto x = randn(static_cast<std::size_t>(n * cols), rng);
          ActQ8K xk;
          quantize_act_q8_k(x.data(), cols, n, cols, xk);
          ActBatch a{x.data(), cols, nullptr, 0, n};
          a.xk = &xk;
          std::vector<float> got(static_cast<std::size_t>(n * rows), NAN), plain(got.size(), NAN);
          std::int64_t split = rows / 2 + 1;  // a row range ending inside a tile
          k->gemm(*k, w, 0, split, a, got.data(), rows);
          k->gemm(*k, w, split, rows, a, got.data(), rows);
          // The float kernels, where the type has them (Q2_K's, Q3_K's and Q5_K's take Q8_0
          // blocks).
          const bool has_float = type == DType::kQ4_K || type == DType::kQ6_K;
          ActBatch floats{x.data(), cols, nullptr, 0, n};
          if (has_float) k->gemm(*k, w, 0, rows, floats, plain.data(), rows);
          for (std::int64_t t = 0; t < n; ++t) {
            for (std::int64_t r = 0; r < rows; ++r) {
              CAPTURE(tok::ggml::type_name(type));
              CAPTURE(cols);
              CAPTURE(rows);
              CAPTURE(n);
              CAPTURE(r);
              CAPTURE(t);
              double want = 0, mag = 0, qerr = 0;
              for (std::int64_t i = 0; i < cols; ++i) {
                double wi = wf[r * cols + i];
                double xi = double(xk.d[(t * cols + i) / 256]) * xk.q[t * cols + i];
                want += wi * xi;
                mag += std::fabs(wi * xi);
                qerr += std::fabs(wi) * std::fabs(double(xk.d[(t * cols + i) / 256]));
              }
              float g = got[t * rows + r], p = plain[t * rows + r];
              CHECK(std::fabs(g - want) <= 1e-5 * mag + 1e-6);
              // The float kernels see x itself: they differ by at most half a
              // quantization step per value.
              if (has_float) CHECK(std::fabs(g - p) <= 0.5 * qerr + 1e-4 * mag + 1e-5);
            }
          }
        }
      }
    }
  }
}

TEST_CASE(
    "Q2_K to Q6_K decode over Q8_K blocks: gemm of one token equals a double-precision "
    "reference") {
  std::mt19937 rng(6);
  for (DType type : {DType::kQ2_K, DType::kQ3_K, DType::kQ4_K, DType::kQ5_K, DType::kQ6_K}) {
    for (std::int64_t cols : {256, 768}) {
      for (std::int64_t rows : {1, 5, 13}) {  // 13: three groups of four rows and one more
        TensorView w{type, rows, cols, nullptr};
        std::vector<std::uint8_t> bytes(w.bytes());
        w.data = bytes.data();
        std::vector<float> wf(static_cast<std::size_t>(rows * cols));
        for (std::int64_t r = 0; r < rows; ++r) {
          auto f = randn(static_cast<std::size_t>(cols), rng);
          tok::ggml::traits(type).from_float(f.data(), bytes.data() + r * w.row_bytes(), cols);
          dequantize_row(type, w.row(r), wf.data() + r * cols, cols);
        }
        auto x = randn(static_cast<std::size_t>(cols), rng);
        std::vector<ggml::BlockQ8_K> xk8(static_cast<std::size_t>(cols / ggml::kQKK));
        quantize_row_q8_k(x.data(), xk8.data(), cols);
        ActBatch a{x.data(), cols, nullptr, 0, 1};
        a.xk8 = xk8.data();
        a.xk8_stride = cols / ggml::kQKK;
        for (const DotKernels* k : tok::model::test::all_kernels()) {
          if (!wants_q8_k_rows(*k, type, 1)) continue;
          std::vector<float> got(static_cast<std::size_t>(rows), NAN);
          std::int64_t split = rows / 2 + 1;  // a row range ending inside a group of four
          k->gemm(*k, w, 0, split, a, got.data(), rows);
          k->gemm(*k, w, split, rows, a, got.data(), rows);
          for (std::int64_t r = 0; r < rows; ++r) {
            CAPTURE(tok::ggml::type_name(type));
            CAPTURE(static_cast<int>(k->isa));
            CAPTURE(cols);
            CAPTURE(rows);
            CAPTURE(r);
            double want = 0, mag = 0;
            for (std::int64_t i = 0; i < cols; ++i) {
              const ggml::BlockQ8_K& b = xk8[static_cast<std::size_t>(i / ggml::kQKK)];
              double p = double(wf[r * cols + i]) * double(b.d) * b.qs[i % ggml::kQKK];
              want += p;
              mag += std::fabs(p);
            }
            CHECK(std::fabs(got[static_cast<std::size_t>(r)] - want) <= 1e-5 * mag + 1e-6);
          }
        }
      }
    }
  }
}

TEST_CASE(
    "q8_K activations: every kernel set's quantizers agree bit for bit with the scalar ones") {
  std::mt19937 rng(21);
  constexpr std::int64_t kCols = 4 * ggml::kQKK;
  std::vector<std::vector<float>> rows;
  for (int r = 0; r < 16; ++r) rows.push_back(randn(kCols, rng, r % 2 ? 1.f : 50.f));
  std::vector<float> edge(kCols, 0.f);  // block 0 all zero (and -0)
  edge[3] = -0.f;
  edge[ggml::kQKK + 7] =
      -3.5f;  // block 1: the largest is negative, with a tie of opposite sign later
  edge[ggml::kQKK + 9] = 3.5f;
  for (int i = 2 * ggml::kQKK; i < 3 * ggml::kQKK; ++i)
    edge[i] = 1e-3f * static_cast<float>(i % 7);  // block 2: one huge value
  edge[2 * ggml::kQKK + 100] = 1e6f;
  // Block 3: largest 127, so iscale = -1 and every other value, k + 0.5, is a tie (to even).
  for (int i = 3 * ggml::kQKK; i < 4 * ggml::kQKK; ++i)
    edge[i] = static_cast<float>(i % 50) - 24.5f;
  edge[3 * ggml::kQKK + 5] = 127.f;
  rows.push_back(edge);
  for (const DotKernels* k : tok::model::test::all_kernels()) {
    CAPTURE(isa_name(k->isa));
    for (const auto& x : rows) {
      ActQ8K a, b;
      quantize_act_q8_k(x.data(), kCols, 1, kCols, a);
      quantize_act_q8_k(*k, x.data(), kCols, 1, kCols, b);
      CHECK(a.q == b.q);
      CHECK(std::memcmp(a.d.data(), b.d.data(), a.d.size() * sizeof(float)) == 0);
      CHECK(std::memcmp(a.sums.data(), b.sums.data(), a.sums.size() * sizeof(float)) == 0);
      std::vector<ggml::BlockQ8_K> ra(kCols / ggml::kQKK), rb(kCols / ggml::kQKK);
      quantize_row_q8_k(x.data(), ra.data(), kCols);
      quantize_row_q8_k(*k, x.data(), rb.data(), kCols);
      CHECK(std::memcmp(ra.data(), rb.data(), ra.size() * sizeof(ggml::BlockQ8_K)) == 0);
    }
  }
}
