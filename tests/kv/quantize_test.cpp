#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <vector>

#include "ggml/half.hpp"
#include "kv/kv_type.hpp"

using namespace tok::kv;
using tok::ggml::f32_to_fp16;
using tok::ggml::fp16_to_f32;

namespace {

std::vector<float> random_row(std::mt19937& rng, int n, float spread) {
  std::normal_distribution<float> nd(0.0f, spread);
  std::vector<float> x(static_cast<std::size_t>(n));
  for (float& v : x) v = nd(rng);
  return x;
}

std::vector<float> round_trip(KvType t, const std::vector<float>& x,
                              std::vector<std::uint8_t>* bytes = nullptr) {
  int n = static_cast<int>(x.size());
  std::vector<std::uint8_t> q(row_bytes(t, n).value());
  quantize_row(t, x.data(), n, q.data());
  std::vector<float> y(x.size());
  dequantize_row(t, q.data(), n, y.data());
  if (bytes) *bytes = q;
  return y;
}

float stored_scale(const std::vector<std::uint8_t>& q, std::size_t block, std::size_t block_bytes) {
  return fp16_to_f32(
      static_cast<std::uint16_t>(q[block * block_bytes] | (q[block * block_bytes + 1] << 8)));
}

}  // namespace

TEST_CASE("kv type: names, parse errors and row bytes") {
  CHECK(parse_kv_type("q8_0").value() == KvType::kQ8_0);
  CHECK(kv_type_name(KvType::kQ4_0) == "q4_0");
  auto bad = parse_kv_type("q5_1");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message == "unknown KV type 'q5_1': expected f32, f16, q8_0 or q4_0");
  CHECK(row_bytes(KvType::kF32, 128).value() == 512);
  CHECK(row_bytes(KvType::kF16, 128).value() == 256);
  CHECK(row_bytes(KvType::kQ8_0, 128).value() == 4 * 34);
  CHECK(row_bytes(KvType::kQ4_0, 128).value() == 4 * 18);
  auto odd = row_bytes(KvType::kQ8_0, 48);
  REQUIRE_FALSE(odd.ok());
  CHECK(odd.error().message.find("multiple of 32") != std::string::npos);
  CHECK(row_bytes(KvType::kF16, 48).ok());
}

TEST_CASE("f16 rows: round trip within half precision") {
  std::mt19937 rng(1);
  auto x = random_row(rng, 256, 3.0f);
  auto y = round_trip(KvType::kF16, x);
  for (std::size_t i = 0; i < x.size(); ++i)
    CHECK(std::fabs(x[i] - y[i]) <= std::fabs(x[i]) * 0x1p-11f + 0x1p-25f);
}

TEST_CASE("q8_0: ggml layout on an exact block") {
  std::vector<float> x(32);
  for (int i = 0; i < 32; ++i)
    x[static_cast<std::size_t>(i)] = static_cast<float>(i - 16);  // absmax 16
  std::vector<std::uint8_t> q;
  auto y = round_trip(KvType::kQ8_0, x, &q);
  REQUIRE(q.size() == 34);
  float d = stored_scale(q, 0, 34);
  CHECK(d == fp16_to_f32(f32_to_fp16(16.0f / 127.0f)));
  CHECK(static_cast<std::int8_t>(q[2]) == -127);  // -16 / d
  CHECK(static_cast<std::int8_t>(q[2 + 16]) == 0);
  CHECK(y[16] == 0.0f);
}

TEST_CASE(
    "q8_0: max abs error < 0.5625 d per block (d the stored scale; llama.cpp's reference rule)") {
  std::mt19937 rng(2);
  for (int trial = 0; trial < 2000; ++trial) {
    float spread = std::ldexp(1.0f, trial % 16 - 4);  // 1/16 .. 2048
    auto x = random_row(rng, 128, spread);
    std::vector<std::uint8_t> q;
    auto y = round_trip(KvType::kQ8_0, x, &q);
    for (std::size_t b = 0; b < 4; ++b) {
      float d = stored_scale(q, b, 34);
      for (std::size_t i = b * 32; i < b * 32 + 32; ++i)
        REQUIRE(std::fabs(x[i] - y[i]) <= d * 0.5625f);
    }
  }
  std::vector<float> zeros(32, 0.0f);
  auto z = round_trip(KvType::kQ8_0, zeros);
  for (float v : z) CHECK(v == 0.0f);
}

TEST_CASE(
    "q4_0: error <= |d|/2 inside the code range, <= |d| = absmax/8 at the clamped opposite "
    "extreme (each + 8 |d - f16(d)|)") {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 2000; ++trial) {
    auto x = random_row(rng, 64, std::ldexp(1.0f, trial % 12 - 4));
    std::vector<std::uint8_t> q;
    auto y = round_trip(KvType::kQ4_0, x, &q);
    for (std::size_t b = 0; b < 2; ++b) {
      float d = stored_scale(q, b, 18);
      float absmax = 0.0f;
      for (std::size_t i = b * 32; i < b * 32 + 32; ++i) absmax = std::max(absmax, std::fabs(x[i]));
      REQUIRE(std::fabs(std::fabs(d) - absmax / 8) <= absmax / 8 * 0x1p-11f);
      for (std::size_t i = b * 32; i < b * 32 + 32; ++i) {
        float err = std::fabs(x[i] - y[i]);
        // absmax - 7|d| <= |d| (1 + 8 * 2^-11): |d| may be rounded down by f16.
        // + 8 |d - ds|: the codes are chosen against the exact scale (ggml's rule).
        float scale_err = std::fabs(d) * 0x1p-8f;
        REQUIRE(err <= std::max(std::fabs(d) * 0.5f, absmax - 7 * std::fabs(d)) + scale_err);
        REQUIRE(err <= std::fabs(d) * (1 + 0x1p-7f));
        if (x[i] / d <= 7.5f) REQUIRE(err <= std::fabs(d) * 0.5f + scale_err);
      }
    }
  }
}

TEST_CASE("q4_0: the bound |d| is reached by an opposite-sign extreme; ggml nibble order") {
  std::vector<float> x(32, 0.0f);
  x[0] = 8.0f;    // m = 8 -> d = -1
  x[17] = -8.0f;  // same magnitude, opposite sign: clamped to 7 * d = -7
  std::vector<std::uint8_t> q;
  auto y = round_trip(KvType::kQ4_0, x, &q);
  CHECK(stored_scale(q, 0, 18) == -1.0f);
  CHECK(y[0] == 8.0f);
  CHECK(y[17] == -7.0f);         // error exactly |d|
  CHECK((q[2] & 0x0f) == 0);     // element 0: code 0 -> (0 - 8) * -1 = 8
  CHECK((q[2 + 1] >> 4) == 15);  // element 17 in the high nibble of byte 1
  CHECK(y[5] == 0.0f);
}
