// Kernels against straightforward reference code on random inputs: every
// dot product (scalar, AVX2, AVX-512 VNNI) equals dequantize-then-dot in double.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <vector>

#include "ggml/half.hpp"
#include "ggml/quants.hpp"
#include "kernel_sets.hpp"
#include "model/kernels.hpp"
#include "model/ops.hpp"

using namespace tok::model;
namespace ggml = tok::ggml;
using tok::model::test::all_kernels;
using tok::model::test::randn;

namespace {

double ref_dot(const float* a, const float* b, std::size_t n) {
  double s = 0;
  for (std::size_t i = 0; i < n; ++i) s += static_cast<double>(a[i]) * b[i];
  return s;
}

// Random bytes with sane fp16 scales for K-quant blocks.
template <class Block>
std::vector<Block> random_blocks(std::size_t n, std::mt19937& rng) {
  std::vector<Block> b(n);
  std::uniform_int_distribution<int> byte(0, 255);
  for (auto& blk : b) {
    auto* p = reinterpret_cast<unsigned char*>(&blk);
    for (std::size_t i = 0; i < sizeof(Block); ++i) p[i] = static_cast<unsigned char>(byte(rng));
  }
  return b;
}

}  // namespace

TEST_CASE("fp16 and bf16 conversions round-trip and round to nearest even") {
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    float f = ggml::fp16_to_f32(static_cast<std::uint16_t>(h));
    if (std::isnan(f)) continue;
    CHECK(ggml::f32_to_fp16(f) == h);
  }
  CHECK(ggml::fp16_to_f32(0x3C00) == 1.0f);
  CHECK(ggml::f32_to_fp16(1.0f + 1.0f / 4096) == 0x3C00);  // halfway below: even
  CHECK(ggml::bf16_to_f32(ggml::f32_to_bf16(3.140625f)) == 3.140625f);
}

TEST_CASE("float dot products match the reference") {
  std::mt19937 rng(1);
  for (std::size_t n : {1u, 7u, 32u, 100u, 256u, 4096u}) {
    auto a = randn(n, rng), b = randn(n, rng);
    std::vector<std::uint16_t> h(n), bf(n);
    std::vector<float> ah(n), abf(n);
    for (std::size_t i = 0; i < n; ++i) {
      h[i] = ggml::f32_to_fp16(a[i]);
      ah[i] = ggml::fp16_to_f32(h[i]);
      bf[i] = ggml::f32_to_bf16(a[i]);
      abf[i] = ggml::bf16_to_f32(bf[i]);
    }
    double tol = 1e-5 * std::sqrt(static_cast<double>(n)) + 1e-6;
    for (const DotKernels* k : all_kernels()) {
      CAPTURE(n);
      CAPTURE(static_cast<int>(k->isa));
      CHECK(std::fabs(k->f32(a.data(), b.data(), static_cast<std::int64_t>(n)) -
                      ref_dot(a.data(), b.data(), n)) < tol);
      CHECK(std::fabs(k->f16(h.data(), b.data(), static_cast<std::int64_t>(n)) -
                      ref_dot(ah.data(), b.data(), n)) < tol);
      CHECK(std::fabs(k->bf16(bf.data(), b.data(), static_cast<std::int64_t>(n)) -
                      ref_dot(abf.data(), b.data(), n)) < tol);
    }
  }
}

TEST_CASE("Q8_0 and Q4_0 dots equal dequantized integer dots") {
  std::mt19937 rng(2);
  const std::size_t n = 512;
  auto w = randn(n, rng), x = randn(n, rng);
  std::vector<ggml::BlockQ8_0> w8(n / 32), x8(n / 32);
  std::vector<ggml::BlockQ4_0> w4(n / 32);
  ggml::quantize_row_q8_0(w.data(), w8.data(), n);
  ggml::quantize_row_q4_0(w.data(), w4.data(), n);
  ggml::quantize_row_q8_0(x.data(), x8.data(), n);
  std::vector<float> dw8(n), dw4(n), dx8(n);
  dequantize_row(DType::kQ8_0, w8.data(), dw8.data(), n);
  dequantize_row(DType::kQ4_0, w4.data(), dw4.data(), n);
  dequantize_row(DType::kQ8_0, x8.data(), dx8.data(), n);
  // Quantization error is bounded by half a step per element.
  for (std::size_t i = 0; i < n; ++i) {
    CHECK(std::fabs(dw8[i] - w[i]) <=
          ggml::fp16_to_f32(w8[i / 32].d) * 0.57f + 1e-6f);  // + fp16 rounding of d
    CHECK(std::fabs(dw4[i] - w[i]) <= std::fabs(ggml::fp16_to_f32(w4[i / 32].d)) * 1.0f + 1e-6f);
  }
  for (const DotKernels* k : all_kernels()) {
    CAPTURE(static_cast<int>(k->isa));
    CHECK(k->q8_0(w8.data(), x8.data(), n) ==
          doctest::Approx(ref_dot(dw8.data(), dx8.data(), n)).epsilon(1e-5));
    CHECK(k->q4_0(w4.data(), x8.data(), n) ==
          doctest::Approx(ref_dot(dw4.data(), dx8.data(), n)).epsilon(1e-5));
  }
}

TEST_CASE("Q4_K and Q6_K dots equal dequantize-then-dot") {
  std::mt19937 rng(3);
  const std::size_t n = 1024;
  auto x = randn(n, rng);
  auto q4 = random_blocks<ggml::BlockQ4_K>(n / 256, rng);
  auto q6 = random_blocks<ggml::BlockQ6_K>(n / 256, rng);
  for (auto& b : q4) {
    b.d = ggml::f32_to_fp16(0.01f);
    b.dmin = ggml::f32_to_fp16(0.02f);
  }
  for (auto& b : q6) b.d = ggml::f32_to_fp16(0.001f);
  std::vector<float> d4(n), d6(n);
  dequantize_row(DType::kQ4_K, q4.data(), d4.data(), n);
  dequantize_row(DType::kQ6_K, q6.data(), d6.data(), n);
  // Spot-check the layouts: element 0 of a Q6_K block is ql[0] low nibble +
  // qh[0] bits 0-1, minus 32, times scale 0.
  int q = ((q6[0].ql[0] & 0xF) | ((q6[0].qh[0] & 3) << 4)) - 32;
  CHECK(d6[0] == doctest::Approx(ggml::fp16_to_f32(q6[0].d) * q6[0].scales[0] * q));
  int sc0 = q4[0].scales[0] & 63, m0 = q4[0].scales[4] & 63;
  CHECK(d4[0] == doctest::Approx(ggml::fp16_to_f32(q4[0].d) * sc0 * (q4[0].qs[0] & 0xF) -
                                 ggml::fp16_to_f32(q4[0].dmin) * m0));
  for (const DotKernels* k : all_kernels()) {
    CHECK(k->q4_k(q4.data(), x.data(), n) ==
          doctest::Approx(ref_dot(d4.data(), x.data(), n)).epsilon(1e-4));
    CHECK(k->q6_k(q6.data(), x.data(), n) ==
          doctest::Approx(ref_dot(d6.data(), x.data(), n)).epsilon(1e-4));
  }
}

TEST_CASE("rmsnorm, softmax, rope, swiglu and geglu match their definitions") {
  std::mt19937 rng(4);
  auto x = randn(64, rng), w = randn(64, rng);
  std::vector<float> out(64);
  rmsnorm(out.data(), x.data(), w.data(), 64, 1e-5f);
  double ms = ref_dot(x.data(), x.data(), 64) / 64;
  for (int i = 0; i < 64; ++i)
    CHECK(out[i] == doctest::Approx(x[i] / std::sqrt(ms + 1e-5) * w[i]).epsilon(1e-5));

  auto s = randn(10, rng, 5);
  auto p = s;
  softmax(p.data(), 10);
  double z = 0;
  for (float v : s) z += std::exp(static_cast<double>(v));
  for (int i = 0; i < 10; ++i) CHECK(p[i] == doctest::Approx(std::exp(s[i]) / z).epsilon(1e-5));

  // RoPE: pairs rotate by pos * base^(-2i/d); norms are preserved.
  const int d = 8, pos = 7;
  std::vector<float> inv(d / 2);
  for (int i = 0; i < d / 2; ++i) inv[i] = static_cast<float>(std::pow(10000.0, -2.0 * i / d));
  auto h = randn(d, rng), a = h, b = h;
  rope(a.data(), d, pos, inv.data(), false);
  rope(b.data(), d, pos, inv.data(), true);
  for (int i = 0; i < d / 2; ++i) {
    double c = std::cos(pos * inv[i]), sn = std::sin(pos * inv[i]);
    CHECK(a[2 * i] == doctest::Approx(h[2 * i] * c - h[2 * i + 1] * sn).epsilon(1e-5));
    CHECK(a[2 * i + 1] == doctest::Approx(h[2 * i] * sn + h[2 * i + 1] * c).epsilon(1e-5));
    CHECK(b[i] == doctest::Approx(h[i] * c - h[i + d / 2] * sn).epsilon(1e-5));
    CHECK(b[i + d / 2] == doctest::Approx(h[i] * sn + h[i + d / 2] * c).epsilon(1e-5));
  }
  std::vector<float> g{1.0f, -2.0f}, u{3.0f, 0.5f};
  swiglu(g.data(), u.data(), 2);
  CHECK(g[0] == doctest::Approx(1.0 / (1 + std::exp(-1.0)) * 3));
  CHECK(g[1] == doctest::Approx(-2.0 / (1 + std::exp(2.0)) * 0.5));
  // GeGLU, GELU in its tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
  std::vector<float> ge{1.0f, -2.0f};
  geglu(ge.data(), u.data(), 2);
  auto gelu = [](double v) {
    return 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
  };
  CHECK(ge[0] == doctest::Approx(gelu(1.0) * 3).epsilon(1e-6));
  CHECK(ge[1] == doctest::Approx(gelu(-2.0) * 0.5).epsilon(1e-6));
}
