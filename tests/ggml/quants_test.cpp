// The block formats against independent statements of their layouts, and
// every quantizer's round trip within the error its code range allows.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "ggml/half.hpp"
#include "ggml/quants.hpp"
#include "ggml/type.hpp"

using namespace tok::ggml;

namespace {

std::vector<float> randn(std::size_t n, std::mt19937& rng, float s = 1) {
  std::normal_distribution<float> d(0, s);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

std::vector<float> round_trip(Type t, const std::vector<float>& x) {
  auto n = static_cast<std::int64_t>(x.size());
  std::vector<std::uint8_t> q(row_bytes(t, n));
  traits(t).from_float(x.data(), q.data(), n);
  std::vector<float> y(x.size());
  traits(t).to_float(q.data(), y.data(), n);
  return y;
}

}  // namespace

TEST_CASE("the traits table: ggml's names, block sizes and bytes; computable types parse") {
  CHECK(traits(4u) == nullptr);  // Q4_2: removed from ggml
  CHECK(traits(99u) == nullptr);
  CHECK(traits(Type::kQ4_K).name == "q4_K");
  CHECK(traits(Type::kQ5_1).type_size == 24);
  CHECK(traits(Type::kQ2_K).type_size == 84);
  CHECK(traits(Type::kQ3_K).block_size == 256);
  CHECK_FALSE(traits(Type::kBF16).is_quantized);
  CHECK(traits(Type::kQ8_0).is_quantized);
  Type t;
  REQUIRE(parse_type("Q5_k", t));
  CHECK(t == Type::kQ5_K);
  CHECK_FALSE(parse_type("iq2_xs", t));  // known, but tok cannot compute with it
  CHECK(computable_type_names() ==
        "f32, f16, q4_0, q4_1, q5_0, q5_1, q8_0, q2_K, q3_K, q4_K, q5_K, q6_K, bf16");
  CHECK(row_bytes(Type::kQ5_0, 64) == 44);
}

TEST_CASE("every quantizer round-trips within its code range's step") {
  // Bound on max |x - x'| / absmax over normal data, a little above the
  // worst case each rule allows (half a step of the coarsest scale; a
  // whole step, absmax / 4, at Q3_K's clamped opposite-sign extreme).
  struct Case {
    Type type;
    double bound;
  };
  std::mt19937 rng(7);
  for (Case c : {Case{Type::kF16, 1e-3}, Case{Type::kBF16, 8e-3}, Case{Type::kQ8_0, 0.006},
                 Case{Type::kQ4_0, 0.13}, Case{Type::kQ4_1, 0.07}, Case{Type::kQ5_0, 0.065},
                 Case{Type::kQ5_1, 0.035}, Case{Type::kQ2_K, 0.35}, Case{Type::kQ3_K, 0.3},
                 Case{Type::kQ4_K, 0.08}, Case{Type::kQ5_K, 0.04}, Case{Type::kQ6_K, 0.025}}) {
    CAPTURE(type_name(c.type));
    for (int trial = 0; trial < 20; ++trial) {
      auto x = randn(1024, rng, std::ldexp(1.0f, trial % 8 - 3));
      auto y = round_trip(c.type, x);
      double amax = 0, err = 0;
      for (std::size_t i = 0; i < x.size(); ++i) {
        amax = std::max(amax, std::fabs(static_cast<double>(x[i])));
        err = std::max(err, std::fabs(static_cast<double>(x[i]) - y[i]));
      }
      REQUIRE(err <= c.bound * amax);
    }
    std::vector<float> zeros(256, 0.0f);
    for (float v : round_trip(c.type, zeros)) CHECK(v == 0.0f);
  }
}

TEST_CASE("Q5_0 and Q5_1: the 5th bit of value j is bit j of qh, of value j + 16 bit j + 16") {
  BlockQ5_0 b{};
  b.d = f32_to_fp16(1.0f);
  b.qs[3] = 0x21;                         // value 3: low 1, value 19: low 2
  std::uint32_t qh = 1u << 3 | 1u << 19;  // both get the 5th bit
  std::memcpy(b.qh, &qh, 4);
  float y[32];
  dequantize_row_q5_0(&b, y, 32);
  CHECK(y[3] == 17 - 16);
  CHECK(y[19] == 18 - 16);
  CHECK(y[0] == -16);
  BlockQ5_1 c{};
  c.d = f32_to_fp16(0.5f);
  c.m = f32_to_fp16(-1.0f);
  c.qs[0] = 0xF0;  // value 16: 15 + 16 (bit 16)
  qh = 1u << 16;
  std::memcpy(c.qh, &qh, 4);
  dequantize_row_q5_1(&c, y, 32);
  CHECK(y[16] == 31 * 0.5f - 1);
  CHECK(y[0] == -1.0f);
}

TEST_CASE("Q3_K: scales unpack as llama.cpp's kmask shuffle does") {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> byte(0, 255);
  for (int trial = 0; trial < 100; ++trial) {
    BlockQ3_K b;
    auto* p = reinterpret_cast<std::uint8_t*>(&b);
    for (std::size_t i = 0; i < sizeof b; ++i) p[i] = static_cast<std::uint8_t>(byte(rng));
    b.d = f32_to_fp16(1.0f);
    // dequantize_row_q3_K's unpacking, written as llama.cpp writes it.
    std::uint32_t aux[4];
    std::memcpy(aux, b.scales, 12);
    std::uint32_t tmp = aux[2];
    const std::uint32_t kmask1 = 0x03030303, kmask2 = 0x0f0f0f0f;
    aux[2] = ((aux[0] >> 4) & kmask2) | (((tmp >> 4) & kmask1) << 4);
    aux[3] = ((aux[1] >> 4) & kmask2) | (((tmp >> 6) & kmask1) << 4);
    aux[0] = (aux[0] & kmask2) | (((tmp >> 0) & kmask1) << 4);
    aux[1] = (aux[1] & kmask2) | (((tmp >> 2) & kmask1) << 4);
    const auto* scales = reinterpret_cast<const std::int8_t*>(aux);
    float y[256];
    dequantize_row_q3_k(&b, y, 256);
    for (int e = 0; e < 256; ++e) {
      int h = e / 128, j = (e % 128) / 32, l = e % 32;
      int q = ((b.qs[32 * h + l] >> (2 * j)) & 3) - ((b.hmask[l] >> (e / 32)) & 1 ? 0 : 4);
      REQUIRE(y[e] == static_cast<float>((scales[e / 16] - 32) * q));
    }
  }
}

TEST_CASE("Q2_K and Q5_K: element positions of quants, scales and high bits") {
  std::mt19937 rng(12);
  std::uniform_int_distribution<int> byte(0, 255);
  BlockQ2_K b2;
  BlockQ5_K b5;
  for (auto* p : {reinterpret_cast<std::uint8_t*>(&b2), reinterpret_cast<std::uint8_t*>(&b5)}) {
    std::size_t size = p == reinterpret_cast<std::uint8_t*>(&b2) ? sizeof b2 : sizeof b5;
    for (std::size_t i = 0; i < size; ++i) p[i] = static_cast<std::uint8_t>(byte(rng));
  }
  b2.d = b5.d = f32_to_fp16(1.0f);
  b2.dmin = b5.dmin = f32_to_fp16(0.5f);
  float y2[256], y5[256];
  dequantize_row_q2_k(&b2, y2, 256);
  dequantize_row_q5_k(&b5, y5, 256);
  for (int e = 0; e < 256; ++e) {
    int h = e / 128, j = (e % 128) / 32, l = e % 32;
    int q2 = (b2.qs[32 * h + l] >> (2 * j)) & 3;
    CHECK(y2[e] == (b2.scales[e / 16] & 0xF) * q2 - 0.5f * (b2.scales[e / 16] >> 4));
    int k = e / 64, hi = (e % 64) / 32;
    int q5 = ((b5.qs[32 * k + l] >> (4 * hi)) & 0xF) | ((b5.qh[l] >> (2 * k + hi)) & 1) << 4;
    std::uint8_t sc, m;
    scale_min_k4(e / 32, b5.scales, sc, m);
    CHECK(y5[e] == sc * q5 - 0.5f * m);
  }
}
