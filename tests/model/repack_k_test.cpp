// Q4_K and Q6_K rows repacked in groups of sixteen (model/repack.hpp,
// Q4_Kx16 and Q6_Kx16): the layout round trips, and every kernel set's
// products with a repacked matrix equal a double-precision product of the dequantized rows and the
// activations the set multiplies (q8_K for AVX-512 prefill, Q8_K blocks for
// decode, floats otherwise), for row counts that leave plain rows after the
// last group, row ranges that cut a group, one to three tokens (decode and
// small batches) and prompts around the tile width; and the same products on
// the plain rows.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernel_sets.hpp"
#include "model/act_q8_k.hpp"
#include "model/kernels.hpp"
#include "model/model.hpp"
#include "model/repack.hpp"

using namespace tok::model;
namespace ggml = tok::ggml;
using tok::model::test::randn;

namespace {

std::vector<std::uint8_t> random_k(DType type, std::int64_t rows, std::int64_t cols,
                                   std::mt19937& rng) {
  TensorView w{type, rows, cols, nullptr};
  std::vector<std::uint8_t> bytes(w.bytes());
  for (std::int64_t r = 0; r < rows; ++r) {
    auto f = randn(static_cast<std::size_t>(cols), rng);
    tok::ggml::traits(type).from_float(f.data(), bytes.data() + r * w.row_bytes(), cols);
  }
  return bytes;
}
std::vector<std::uint8_t> random_q4_k(std::int64_t rows, std::int64_t cols, std::mt19937& rng) {
  return random_k(DType::kQ4_K, rows, cols, rng);
}

// The two layouts behind one interface.
bool repackable(const TensorView& w) { return q4_kx16_repackable(w) || q6_kx16_repackable(w); }
TensorView repack(const TensorView& w, void* data) {
  return w.type == DType::kQ4_K ? repack_q4_kx16(w, data) : repack_q6_kx16(w, data);
}
bool repacked(const TensorView& w) { return w.q4_kx16 || w.q6_kx16; }
std::int64_t grouped_rows(const TensorView& w) {
  return q4_kx16_grouped_rows(w) + q6_kx16_grouped_rows(w);
}
void unpack_row(const TensorView& w, std::int64_t r, void* out) {
  if (w.type == DType::kQ4_K) return unpack_row_q4_kx16(w, r, static_cast<ggml::BlockQ4_K*>(out));
  unpack_row_q6_kx16(w, r, static_cast<ggml::BlockQ6_K*>(out));
}

}  // namespace

TEST_CASE("Q4_Kx16 and Q6_Kx16 repacking keeps the bytes and unpacks to the original rows") {
  std::mt19937 rng(31);
  for (DType type : {DType::kQ4_K, DType::kQ6_K}) {
    for (std::int64_t rows : {16, 17, 35, 48}) {
      for (std::int64_t cols : {256, 768}) {
        auto plain = random_k(type, rows, cols, rng);
        auto packed = plain;
        TensorView w{type, rows, cols, plain.data()};
        REQUIRE(repackable(w));
        TensorView p = repack(w, packed.data());
        CHECK(repacked(p));
        CHECK(grouped_rows(p) == rows / 16 * 16);
        CHECK_FALSE(repackable(p));  // never twice
        CHECK(std::memcmp(packed.data(), plain.data(), packed.size()) != 0);
        CHECK(std::memcmp(p.row(rows / 16 * 16), w.row(rows / 16 * 16),
                          static_cast<std::size_t>(rows % 16) * w.row_bytes()) == 0);
        std::vector<std::uint8_t> row(w.row_bytes());
        for (std::int64_t r = 0; r < rows; ++r) {
          CAPTURE(tok::ggml::type_name(type));
          CAPTURE(rows);
          CAPTURE(cols);
          CAPTURE(r);
          unpack_row(p, r, row.data());
          CHECK(std::memcmp(row.data(), w.row(r), w.row_bytes()) == 0);
        }
      }
    }
  }
  CHECK_FALSE(q4_kx16_repackable(TensorView{DType::kQ4_0, 32, 256, nullptr}));
  CHECK_FALSE(q4_kx16_repackable(TensorView{DType::kQ4_K, 15, 256, nullptr}));
  CHECK_FALSE(q6_kx16_repackable(TensorView{DType::kQ4_K, 32, 256, nullptr}));
  CHECK_FALSE(q6_kx16_repackable(TensorView{DType::kQ6_K, 15, 256, nullptr}));
}

TEST_CASE(
    "Q4_Kx16 and Q6_Kx16 products: every kernel set against the double reference, odd rows and cut "
    "groups") {
  std::mt19937 rng(32);
  for (DType type : {DType::kQ4_K, DType::kQ6_K}) {
    for (std::int64_t rows : {16, 21, 50}) {
      for (std::int64_t cols : {256, 1024}) {
        auto plain = random_k(type, rows, cols, rng);
        auto packed = plain;
        TensorView w{type, rows, cols, plain.data()};
        TensorView p = repack(w, packed.data());
        std::vector<float> wf(static_cast<std::size_t>(rows * cols));
        for (std::int64_t r = 0; r < rows; ++r)
          dequantize_row(type, w.row(r), wf.data() + r * cols, cols);
        for (std::int64_t n : {1, 2, 3, 5, 9, 37}) {
          auto x = randn(static_cast<std::size_t>(n * cols), rng);
          for (const DotKernels* k : tok::model::test::all_kernels()) {
            // The activations as Forward::matmul hands them to this set.
            ActQ8K xk;
            std::vector<ggml::BlockQ8_K> xk8;
            std::vector<double> xd(x.begin(), x.end());
            ActBatch a{x.data(), cols, nullptr, 0, n};
            if (wants_q8_k(*k, type, n)) {
              quantize_act_q8_k(x.data(), cols, n, cols, xk);
              a.xk = &xk;
              for (std::size_t i = 0; i < xd.size(); ++i)
                xd[i] = double(xk.d[i / ggml::kQKK]) * xk.q[i];
            } else if (wants_q8_k_rows(*k, type, n)) {
              xk8.resize(static_cast<std::size_t>(n * cols / ggml::kQKK));
              for (std::int64_t t = 0; t < n; ++t)
                quantize_row_q8_k(x.data() + t * cols, xk8.data() + t * cols / ggml::kQKK, cols);
              a.xk8 = xk8.data();
              a.xk8_stride = cols / ggml::kQKK;
              for (std::size_t i = 0; i < xd.size(); ++i)
                xd[i] = double(xk8[i / ggml::kQKK].d) * xk8[i / ggml::kQKK].qs[i % ggml::kQKK];
            }
            for (std::int64_t split :
                 {std::int64_t{0}, std::int64_t{1}, std::int64_t{16}, rows / 2 + 1}) {
              if (split > rows) continue;
              std::vector<float> got(static_cast<std::size_t>(n * rows), NAN),
                  flat(got.size(), NAN);
              k->gemm(*k, p, 0, split, a, got.data(), rows);
              k->gemm(*k, p, split, rows, a, got.data(), rows);
              k->gemm(*k, w, 0, rows, a, flat.data(), rows);
              for (std::int64_t t = 0; t < n; ++t) {
                for (std::int64_t r = 0; r < rows; ++r) {
                  CAPTURE(tok::ggml::type_name(type));
                  CAPTURE(static_cast<int>(k->isa));
                  CAPTURE(rows);
                  CAPTURE(cols);
                  CAPTURE(n);
                  CAPTURE(split);
                  CAPTURE(r);
                  CAPTURE(t);
                  double want = 0, mag = 0;
                  for (std::int64_t i = 0; i < cols; ++i) {
                    double v = double(wf[r * cols + i]) * xd[t * cols + i];
                    want += v;
                    mag += std::fabs(v);
                  }
                  float g = got[static_cast<std::size_t>(t * rows + r)],
                        f = flat[static_cast<std::size_t>(t * rows + r)];
                  CHECK(std::fabs(g - want) <= 1e-5 * mag + 1e-6);
                  CHECK(std::fabs(g - f) <= 2e-5 * mag + 2e-6);
                }
              }
            }
          }
        }
      }
    }
  }
}

TEST_CASE("repack_weights: Q4_K and Q6_K matrices of 16 rows or more, beside the Q4_0 ones") {
  if (best_kernels().isa != Isa::kAvx512Vnni) {
    MESSAGE("no AVX-512 VNNI kernels here (or TOK_NO_AVX512): nothing is repacked");
    return;
  }
  std::mt19937 rng(33);
  const std::int64_t cols = 256;
  auto a = random_q4_k(32, cols, rng), small = random_q4_k(8, cols, rng),
       embd = random_q4_k(32, cols, rng);
  const auto a0 = a, small0 = small, embd0 = embd;
  Weights w;
  w.token_embd = TensorView{DType::kQ4_K, 32, cols, embd.data()};
  w.output = w.token_embd;  // tied: the embedding lookup reads its rows
  LayerWeights l;
  l.wq = TensorView{DType::kQ4_K, 32, cols, a.data()};
  l.wk = TensorView{DType::kQ4_K, 8, cols, small.data()};  // fewer rows than a group
  auto v = random_k(DType::kQ6_K, 16, cols, rng);
  l.wv = TensorView{DType::kQ6_K, 16, cols, v.data()};
  w.layers.push_back(l);
  repack_weights(w);
  const LayerWeights& r = w.layers[0];
  CHECK(r.wq.q4_kx16);
  CHECK(r.wv.q6_kx16);
  CHECK_FALSE(r.wv.q4_kx16);
  CHECK_FALSE(r.wk.q4_kx16);
  CHECK_FALSE(w.output.q4_kx16);
  CHECK(std::memcmp(embd.data(), embd0.data(), embd.size()) == 0);
  CHECK(std::memcmp(small.data(), small0.data(), small.size()) == 0);
  CHECK(std::memcmp(a.data(), a0.data(), a.size()) != 0);
  std::vector<ggml::BlockQ4_K> row(cols / ggml::kQKK);
  for (std::int64_t i = 0; i < 32; ++i) {
    unpack_row_q4_kx16(r.wq, i, row.data());
    CHECK(std::memcmp(row.data(), a0.data() + i * w.token_embd.row_bytes(),
                      sizeof(ggml::BlockQ4_K) * row.size()) == 0);
  }
}
