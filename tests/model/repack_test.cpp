// Q4_0 rows repacked in groups of four (model/repack.hpp): the layout round
// trips, and every kernel set's products with a repacked matrix equal the
// double-precision sum of the plain rows' block dots, for row counts that
// leave plain rows after the last group, row ranges that cut a group, one
// token (decode) and batches around the tile width (prefill).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "ggml/half.hpp"
#include "kernel_sets.hpp"
#include "model/kernels.hpp"
#include "model/model.hpp"
#include "model/repack.hpp"

using namespace tok::model;
namespace ggml = tok::ggml;

namespace {

// `blocks` Q4_0 blocks with random bytes (every nibble) and scale d, or
// random scales when d is 0.
std::vector<ggml::BlockQ4_0> random_q4_0(std::int64_t blocks, std::uint16_t d, std::mt19937& rng) {
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_real_distribution<float> scale(-0.1f, 0.1f);
  std::vector<ggml::BlockQ4_0> out(static_cast<std::size_t>(blocks));
  for (auto& b : out) {
    b.d = d ? d : ggml::f32_to_fp16(scale(rng));
    for (auto& q : b.qs) q = static_cast<std::uint8_t>(byte(rng));
  }
  return out;
}

// Row r (plain blocks) times activation x in double, and a bound on the
// magnitude of the float partial sums a kernel adds (nibbles offset by 8:
// up to 23 |x| per value).
struct Ref {
  double sum = 0, magnitude = 0;
};
Ref ref_dot(const ggml::BlockQ4_0* w, const ggml::BlockQ8_0* x, std::int64_t blocks) {
  Ref r;
  for (std::int64_t b = 0; b < blocks; ++b) {
    std::int64_t acc = 0, abs_x = 0;
    for (int j = 0; j < ggml::kQK / 2; ++j) {
      acc += ((w[b].qs[j] & 0xF) - 8) * x[b].qs[j] +
             ((w[b].qs[j] >> 4) - 8) * x[b].qs[j + ggml::kQK / 2];
    }
    for (int j = 0; j < ggml::kQK; ++j) abs_x += std::abs(x[b].qs[j]);
    double d = static_cast<double>(ggml::fp16_to_f32(w[b].d)) * ggml::fp16_to_f32(x[b].d);
    r.sum += d * static_cast<double>(acc);
    r.magnitude += std::fabs(d) * static_cast<double>(abs_x * 23);
  }
  return r;
}

}  // namespace

TEST_CASE("Q4_0x4 repacking keeps the bytes and unpacks to the original rows") {
  std::mt19937 rng(21);
  for (std::int64_t rows : {4, 5, 7, 8, 13}) {
    for (std::int64_t cols : {128, 384}) {
      auto plain = random_q4_0(rows * cols / ggml::kQK, 0, rng);
      auto packed = plain;
      TensorView w{DType::kQ4_0, rows, cols, plain.data()};
      REQUIRE(q4_0x4_repackable(w));
      TensorView p = repack_q4_0x4(w, packed.data());
      CHECK(p.q4_0x4);
      CHECK(p.bytes() == w.bytes());
      CHECK(q4_0x4_grouped_rows(p) == rows / 4 * 4);
      CHECK_FALSE(q4_0x4_repackable(p));  // never twice
      // Plain rows after the last group keep their place and bytes.
      CHECK(std::memcmp(p.row(rows / 4 * 4), w.row(rows / 4 * 4),
                        static_cast<std::size_t>(rows % 4) * w.row_bytes()) == 0);
      std::vector<ggml::BlockQ4_0> row(static_cast<std::size_t>(cols / ggml::kQK));
      for (std::int64_t r = 0; r < rows; ++r) {
        CAPTURE(rows);
        CAPTURE(cols);
        CAPTURE(r);
        unpack_row_q4_0x4(p, r, row.data());
        CHECK(std::memcmp(row.data(), w.row(r), w.row_bytes()) == 0);
      }
    }
  }
  // Not repackable: other types, rows not whole units of 128 columns, fewer than 4 rows.
  CHECK_FALSE(q4_0x4_repackable(TensorView{DType::kQ8_0, 8, 128, nullptr}));
  CHECK_FALSE(q4_0x4_repackable(TensorView{DType::kQ4_0, 8, 96, nullptr}));
  CHECK_FALSE(q4_0x4_repackable(TensorView{DType::kQ4_0, 3, 128, nullptr}));
}

TEST_CASE(
    "Q4_0x4 products: every kernel set against the double reference, odd rows and cut groups") {
  std::mt19937 rng(22);
  std::uniform_int_distribution<int> act(-127, 127);
  // Unit scales: the sums are integers below 2^24, so every kernel must
  // give them exactly; random scales: equal up to summation order.
  for (std::uint16_t d : {std::uint16_t{0x3C00}, std::uint16_t{0}}) {
    for (std::int64_t rows : {4, 5, 7, 13, 16}) {
      // 65 units: longer than the decode kernel's chunk of 64.
      for (std::int64_t units : {1, 3, 65}) {
        if (d && units > 6) continue;  // unit-scale sums would pass 2^24
        const std::int64_t cols = units * 128, blocks = cols / ggml::kQK;
        auto plain = random_q4_0(rows * blocks, d, rng);
        auto packed = plain;
        TensorView w{DType::kQ4_0, rows, cols, plain.data()};
        TensorView p = repack_q4_0x4(w, packed.data());
        for (std::int64_t n :
             {1, 2, 5, 9, 37}) {  // 9: a tile and one more; 37: two blocks of prepared tokens
          std::vector<ggml::BlockQ8_0> xq(static_cast<std::size_t>(n * blocks));
          for (auto& b : xq) {
            b.d =
                d ? d : ggml::f32_to_fp16(std::uniform_real_distribution<float>(0.001f, 0.1f)(rng));
            for (auto& q : b.qs) q = static_cast<std::int8_t>(act(rng));
          }
          std::vector<float> x(static_cast<std::size_t>(n * cols));
          ActBatch a{x.data(), cols, xq.data(), blocks, n};
          for (const DotKernels* k : tok::model::test::all_kernels()) {
            // Row ranges: whole, and cut inside a group (as a thread's share may be).
            for (std::int64_t split : {std::int64_t{0}, std::int64_t{1}, rows / 2 + 1}) {
              std::vector<float> got(static_cast<std::size_t>(n * rows), NAN);
              k->gemm(*k, p, 0, split, a, got.data(), rows);
              k->gemm(*k, p, split, rows, a, got.data(), rows);
              for (std::int64_t t = 0; t < n; ++t) {
                const ggml::BlockQ8_0* xt = xq.data() + t * blocks;
                for (std::int64_t r = 0; r < rows; ++r) {
                  CAPTURE(static_cast<int>(k->isa));
                  CAPTURE(d);
                  CAPTURE(rows);
                  CAPTURE(units);
                  CAPTURE(n);
                  CAPTURE(split);
                  CAPTURE(r);
                  CAPTURE(t);
                  Ref want = ref_dot(plain.data() + r * blocks, xt, blocks);
                  float g = got[static_cast<std::size_t>(t * rows + r)];
                  float dot = dot_row(*k, p, r, Activation{x.data() + t * cols, xt});
                  if (d) {
                    CHECK(g == want.sum);
                    CHECK(dot == want.sum);
                  } else {
                    double tol = 1e-6 * want.magnitude;
                    CHECK(std::fabs(g - want.sum) <= tol);
                    CHECK(std::fabs(dot - want.sum) <= tol);
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

TEST_CASE(
    "repack_weights: the layers' Q4_0 matrices, once each, never a tied output or other types") {
  if (best_kernels().isa != Isa::kAvx512Vnni) {
    MESSAGE("no AVX-512 VNNI kernels here (or TOK_NO_AVX512): nothing is repacked");
    return;
  }
  std::mt19937 rng(23);
  const std::int64_t rows = 8, cols = 256;
  auto a = random_q4_0(rows * cols / ggml::kQK, 0, rng), b = a, embd = a,
       c = random_q4_0(3 * cols / ggml::kQK, 0, rng);
  const auto a0 = a, embd0 = embd, c0 = c;
  std::vector<float> f32(static_cast<std::size_t>(rows * cols));
  Weights w;
  w.token_embd = TensorView{DType::kQ4_0, rows, cols, embd.data()};
  w.output = w.token_embd;  // tied
  LayerWeights l;
  l.wq = TensorView{DType::kQ4_0, rows, cols, a.data()};
  l.wk = l.wq;  // two views of one tensor: repacked once
  l.wv = TensorView{DType::kQ4_0, rows, cols, b.data()};
  l.wo = TensorView{DType::kF32, rows, cols, f32.data()};
  l.w_gate = TensorView{DType::kQ4_0, 3, cols, c.data()};  // too few rows for a group
  w.layers.push_back(l);
  repack_weights(w);
  const LayerWeights& r = w.layers[0];
  CHECK(r.wq.q4_0x4);
  CHECK(r.wv.q4_0x4);
  CHECK(r.wk.q4_0x4);  // wq's data, rearranged once (the rows below read back right)
  CHECK(r.wk.data == r.wq.data);
  CHECK_FALSE(r.wo.q4_0x4);
  CHECK_FALSE(r.w_gate.q4_0x4);
  CHECK_FALSE(w.output.q4_0x4);
  CHECK_FALSE(w.token_embd.q4_0x4);
  CHECK(std::memcmp(embd.data(), embd0.data(), embd.size() * sizeof(ggml::BlockQ4_0)) == 0);
  CHECK(std::memcmp(c.data(), c0.data(), c.size() * sizeof(ggml::BlockQ4_0)) == 0);
  std::vector<ggml::BlockQ4_0> row(static_cast<std::size_t>(cols / ggml::kQK));
  for (std::int64_t i = 0; i < rows; ++i) {
    unpack_row_q4_0x4(r.wq, i, row.data());
    CHECK(std::memcmp(row.data(), a0.data() + i * cols / ggml::kQK,
                      row.size() * sizeof(ggml::BlockQ4_0)) == 0);
  }
}
