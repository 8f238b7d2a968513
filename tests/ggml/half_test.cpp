#include "ggml/half.hpp"

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

using namespace tok::ggml;

TEST_CASE("half: every half survives half -> float -> half") {
  for (std::uint32_t h = 0; h < 0x10000u; ++h) {
    float f = fp16_to_f32(static_cast<std::uint16_t>(h));
    bool nan = (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0;
    if (nan) {
      CHECK(std::isnan(f));
      CHECK(std::isnan(fp16_to_f32(f32_to_fp16(f))));
    } else {
      REQUIRE(f32_to_fp16(f) == h);
    }
  }
}

TEST_CASE("half: exact small cases") {
  CHECK(f32_to_fp16(1.0f) == 0x3c00);
  CHECK(f32_to_fp16(-2.0f) == 0xc000);
  CHECK(f32_to_fp16(65504.0f) == 0x7bff);
  CHECK(f32_to_fp16(65520.0f) == 0x7c00);  // ties to even: overflows to inf
  CHECK(f32_to_fp16(65519.0f) == 0x7bff);
  CHECK(f32_to_fp16(std::ldexp(1.0f, -24)) == 0x0001);  // smallest subnormal
  CHECK(f32_to_fp16(std::ldexp(1.0f, -25)) == 0x0000);  // tie -> even (0)
  CHECK(f32_to_fp16(std::ldexp(1.5f, -25)) == 0x0001);
  CHECK(f32_to_fp16(std::ldexp(1.0f, -14)) == 0x0400);         // smallest normal
  CHECK(f32_to_fp16(1.0f + std::ldexp(1.0f, -11)) == 0x3c00);  // tie -> even
  CHECK(f32_to_fp16(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3c02);
  CHECK(fp16_to_f32(0x3555) == 0.333251953125f);
  CHECK(fp16_to_f32(0x0001) == std::ldexp(1.0f, -24));
  CHECK(std::signbit(fp16_to_f32(f32_to_fp16(-0.0f))));
}

// Against the compiler's own half type where it has one: _Float16 in C++
// (GCC 12 on x86-64, GCC 13 on aarch64; clang 14 on aarch64 only), else
// AArch64's __fp16 (GCC 12 has _Float16 on aarch64 in C only, although it
// defines __FLT16_MAX__ there). Both convert from float by the IEEE rule,
// round to nearest even.
#if defined(__aarch64__) && !defined(__clang__) && __GNUC__ < 13
#define TOK_COMPILER_HALF __fp16
#elif defined(__FLT16_MAX__)
#define TOK_COMPILER_HALF _Float16
#endif
#if defined(TOK_COMPILER_HALF)
TEST_CASE("half: float -> half agrees with the compiler's half type on random floats") {
  std::mt19937 rng(7);
  std::uniform_int_distribution<std::uint32_t> bits;
  for (int i = 0; i < 2000000; ++i) {
    // Exponents concentrated around the half range so every branch is hit.
    std::uint32_t x = bits(rng);
    std::uint32_t exp = 95u + (x >> 23) % 50u;  // 2^-32 .. 2^17
    x = (x & 0x807fffffu) | (exp << 23);
    float f = std::bit_cast<float>(x);
    auto ref = std::bit_cast<std::uint16_t>(static_cast<TOK_COMPILER_HALF>(f));
    REQUIRE(f32_to_fp16(f) == ref);
  }
}
#endif

TEST_CASE("half: halves_to_floats equals fp16_to_f32 for every half, bit for bit") {
  std::vector<std::uint8_t> bytes(2 * 65536);
  for (std::uint32_t h = 0; h < 65536; ++h) {
    bytes[2 * h] = static_cast<std::uint8_t>(h & 0xff);  // little-endian, as KV rows store them
    bytes[2 * h + 1] = static_cast<std::uint8_t>(h >> 8);
  }
  std::vector<float> out(65536);
  halves_to_floats(bytes.data(), 65536, out.data());
  int differ = 0;
  for (std::uint32_t h = 0; h < 65536; ++h) {
    differ += std::bit_cast<std::uint32_t>(out[h]) !=
              std::bit_cast<std::uint32_t>(fp16_to_f32(static_cast<std::uint16_t>(h)));
  }
  CHECK(differ == 0);
}
