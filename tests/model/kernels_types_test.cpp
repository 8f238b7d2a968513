// The Q4_1, Q5_0, Q5_1, Q2_K, Q3_K and Q5_K kernels of every set this CPU
// runs (scalar, AVX2, AVX-512, NEON; the K-quants on Q8_0 and, where the
// set has them, on Q8_K activations) against a double-precision dot over
// ggml's reference dequantization: random bytes (every code and bit
// pattern), scales from tiny to large, rows of 32 (32-value blocks only) to
// 4096 values, odd block counts among them.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <type_traits>
#include <vector>

#include "ggml/half.hpp"
#include "kernel_sets.hpp"
#include "model/act_q8_0.hpp"
#include "model/act_q8_k.hpp"
#include "model/kernels.hpp"

using namespace tok::model;
namespace ggml = tok::ggml;
using tok::model::test::all_kernels;

namespace {

// The offsets of a block's fp16 scales (d, and dmin / m where it has one).
template <class Block>
std::vector<std::size_t> scale_offsets() {
  if constexpr (requires(Block b) { b.dmin; }) return {offsetof(Block, d), offsetof(Block, dmin)};
  if constexpr (requires(Block b) { b.m; }) return {offsetof(Block, d), offsetof(Block, m)};
  return {offsetof(Block, d)};
}

// n / block-size random blocks with every fp16 scale set to `scale` (its
// sign random, as files may hold either).
template <class Block>
std::vector<std::uint8_t> random_row(std::int64_t blocks, float scale, std::mt19937& rng) {
  std::vector<std::uint8_t> row(static_cast<std::size_t>(blocks) * sizeof(Block));
  std::uniform_int_distribution<int> byte(0, 255);
  for (auto& b : row) b = static_cast<std::uint8_t>(byte(rng));
  for (std::int64_t b = 0; b < blocks; ++b) {
    for (std::size_t off : scale_offsets<Block>()) {
      std::uint16_t h = ggml::f32_to_fp16(byte(rng) < 128 ? scale : -scale);
      std::memcpy(row.data() + static_cast<std::size_t>(b) * sizeof(Block) + off, &h, 2);
    }
  }
  return row;
}

struct Ref {
  double sum = 0, magnitude = 0;  // the dot, and sum |w_i x_i| (the rounding scale)
};

Ref ref_dot(const std::vector<float>& w, const std::vector<float>& x) {
  Ref r;
  for (std::size_t i = 0; i < w.size(); ++i) {
    double p = static_cast<double>(w[i]) * x[i];
    r.sum += p;
    r.magnitude += std::fabs(p);
  }
  return r;
}

// Values per activation block: Q8_0 or Q8_K.
template <class Act>
constexpr std::int64_t kActValues = std::is_same_v<Act, ggml::BlockQ8_0> ? ggml::kQK : ggml::kQKK;

// x as the activation blocks a kernel takes, and (in values) what they hold.
template <class Act>
std::vector<Act> quantize_acts(const std::vector<float>& x, std::vector<float>& values) {
  const std::int64_t n = static_cast<std::int64_t>(x.size());
  std::vector<Act> q(static_cast<std::size_t>(n / kActValues<Act>));
  if constexpr (std::is_same_v<Act, ggml::BlockQ8_0>) {
    quantize_act_q8_0(x.data(), q.data(), n);
    dequantize_row(DType::kQ8_0, q.data(), values.data(), n);
  } else {
    quantize_row_q8_k(x.data(), q.data(), n);
    for (std::int64_t i = 0; i < n; ++i) {
      const ggml::BlockQ8_K& b = q[static_cast<std::size_t>(i / ggml::kQKK)];
      values[static_cast<std::size_t>(i)] = b.d * b.qs[i % ggml::kQKK];
    }
  }
  return q;
}

// Rows of `Block` at every length and scale; `dot` calls one kernel set's
// kernel on (row, Act blocks of random floats: Q8_0, or Q8_K for the sets
// whose Q4_K / Q6_K rows take them) and the check is against the weights'
// reference dequantization times the values the activation blocks hold.
template <class Block, class Act, class Dot>
void check_type(DType type, Dot dot) {
  std::mt19937 rng(static_cast<unsigned>(type) + 21);
  std::normal_distribution<float> normal(0, 1);
  // 32, 96, 160: one, three and five 32-value blocks (the AVX-512 kernels'
  // odd last block); 256, 1280, 1792: one, five and seven super-blocks.
  for (std::int64_t n : {32, 96, 160, 256, 512, 1280, 1792, 4096}) {
    if (n % tok::ggml::traits(type).block_size != 0 || n % kActValues<Act> != 0)
      continue;  // 32-value blocks only
    for (float scale : {1e-7f, 1e-3f, 0.25f, 60000.0f}) {
      auto row = random_row<Block>(n / tok::ggml::traits(type).block_size, scale, rng);
      std::vector<float> x(static_cast<std::size_t>(n)), w(x.size()), xs(x.size());  // (n) each
      for (auto& v : x) v = normal(rng);
      x[static_cast<std::size_t>(n / 3)] = 40;  // one outlier sets its block's scale
      std::vector<Act> xq = quantize_acts<Act>(x, xs);
      dequantize_row(type, row.data(), w.data(), n);
      Ref want = ref_dot(w, xs);
      for (const DotKernels* k : all_kernels()) {
        if (std::is_same_v<Act, ggml::BlockQ8_K> && !wants_q8_k_rows(*k, type, 1)) continue;
        CAPTURE(tok::ggml::type_name(type));
        CAPTURE(static_cast<int>(k->isa));
        CAPTURE(n);
        CAPTURE(scale);
        float got = dot(*k, reinterpret_cast<const Block*>(row.data()), xq.data(), n);
        REQUIRE(std::isfinite(got));
        CHECK(std::fabs(got - want.sum) <= 1e-5 * want.magnitude + 1e-30);
        // The same row through dot_row, the entry point of the forward pass.
        TensorView v{type, 1, n, row.data()};
        Activation a{x.data()};
        if constexpr (std::is_same_v<Act, ggml::BlockQ8_0>)
          a.xq = xq.data();
        else
          a.xk8 = xq.data();
        CHECK(dot_row(*k, v, 0, a) == got);
      }
    }
  }
}

}  // namespace

TEST_CASE(
    "Q4_1, Q5_0 and Q5_1 kernels equal the double dot of their codes and the Q8_0 activations") {
  check_type<ggml::BlockQ4_1, ggml::BlockQ8_0>(
      DType::kQ4_1, [](const DotKernels& k, const ggml::BlockQ4_1* w, const ggml::BlockQ8_0* xq,
                       std::int64_t n) { return k.q4_1(w, xq, n); });
  check_type<ggml::BlockQ5_0, ggml::BlockQ8_0>(
      DType::kQ5_0, [](const DotKernels& k, const ggml::BlockQ5_0* w, const ggml::BlockQ8_0* xq,
                       std::int64_t n) { return k.q5_0(w, xq, n); });
  check_type<ggml::BlockQ5_1, ggml::BlockQ8_0>(
      DType::kQ5_1, [](const DotKernels& k, const ggml::BlockQ5_1* w, const ggml::BlockQ8_0* xq,
                       std::int64_t n) { return k.q5_1(w, xq, n); });
}

TEST_CASE(
    "Q2_K, Q3_K and Q5_K kernels equal the double dot of their dequantization and the Q8_0 "
    "activations") {
  check_type<ggml::BlockQ2_K, ggml::BlockQ8_0>(
      DType::kQ2_K, [](const DotKernels& k, const ggml::BlockQ2_K* w, const ggml::BlockQ8_0* xq,
                       std::int64_t n) { return k.q2_k(w, xq, n); });
  check_type<ggml::BlockQ3_K, ggml::BlockQ8_0>(
      DType::kQ3_K, [](const DotKernels& k, const ggml::BlockQ3_K* w, const ggml::BlockQ8_0* xq,
                       std::int64_t n) { return k.q3_k(w, xq, n); });
  check_type<ggml::BlockQ5_K, ggml::BlockQ8_0>(
      DType::kQ5_K, [](const DotKernels& k, const ggml::BlockQ5_K* w, const ggml::BlockQ8_0* xq,
                       std::int64_t n) { return k.q5_k(w, xq, n); });
}

TEST_CASE(
    "the AVX-512 set has kernels of its own for the six Q8_0-activation types and Q2_K, Q3_K, Q5_K "
    "on Q8_K") {
  // Otherwise the checks above would test the AVX2 kernels twice.
  const DotKernels* k = avx512_kernels();
  const DotKernels* a = avx2_kernels();
  if (!k || !a) return;
  CHECK((k->q4_1 != a->q4_1));
  CHECK((k->q5_0 != a->q5_0));
  CHECK((k->q5_1 != a->q5_1));
  CHECK((k->q2_k != a->q2_k));
  CHECK((k->q3_k != a->q3_k));
  CHECK((k->q5_k != a->q5_k));
  CHECK((k->q2_k_q8k != nullptr && k->q3_k_q8k != nullptr && k->q5_k_q8k != nullptr));
  CHECK((k->q2_k_q8k != a->q2_k_q8k));
  CHECK((k->q3_k_q8k != a->q3_k_q8k));
  CHECK((k->q5_k_q8k != a->q5_k_q8k));
}

TEST_CASE(
    "Q4_K and Q6_K integer kernels equal the double dot of their dequantization and the Q8_K "
    "activations") {
  REQUIRE((avx2_kernels() == nullptr || avx2_kernels()->q4_k_q8k != nullptr));
  check_type<ggml::BlockQ4_K, ggml::BlockQ8_K>(
      DType::kQ4_K, [](const DotKernels& k, const ggml::BlockQ4_K* w, const ggml::BlockQ8_K* xk,
                       std::int64_t n) { return k.q4_k_q8k(w, xk, n); });
  check_type<ggml::BlockQ6_K, ggml::BlockQ8_K>(
      DType::kQ6_K, [](const DotKernels& k, const ggml::BlockQ6_K* w, const ggml::BlockQ8_K* xk,
                       std::int64_t n) { return k.q6_k_q8k(w, xk, n); });
}

TEST_CASE(
    "Q2_K, Q3_K and Q5_K integer kernels equal the double dot of their dequantization and the "
    "Q8_K activations") {
  check_type<ggml::BlockQ2_K, ggml::BlockQ8_K>(
      DType::kQ2_K, [](const DotKernels& k, const ggml::BlockQ2_K* w, const ggml::BlockQ8_K* xk,
                       std::int64_t n) { return k.q2_k_q8k(w, xk, n); });
  check_type<ggml::BlockQ3_K, ggml::BlockQ8_K>(
      DType::kQ3_K, [](const DotKernels& k, const ggml::BlockQ3_K* w, const ggml::BlockQ8_K* xk,
                       std::int64_t n) { return k.q3_k_q8k(w, xk, n); });
  check_type<ggml::BlockQ5_K, ggml::BlockQ8_K>(
      DType::kQ5_K, [](const DotKernels& k, const ggml::BlockQ5_K* w, const ggml::BlockQ8_K* xk,
                       std::int64_t n) { return k.q5_k_q8k(w, xk, n); });
}

TEST_CASE(
    "Q2_K, Q3_K and Q5_K on Q8_K: every set's integer sums are exactly the scalar kernels' "
    "(ggml's)") {
  // Every scale 1 or -1 and activations in -15..15: each float step is on
  // integers below 2^24, so any two sets' results must be equal.
  std::mt19937 rng(46);
  const std::int64_t n = 512;
  std::vector<ggml::BlockQ8_K> xk(static_cast<std::size_t>(n / ggml::kQKK));
  std::uniform_int_distribution<int> code(-15, 15);
  for (auto& b : xk) {
    b.d = 1;
    for (int j = 0; j < ggml::kQKK / 16; ++j) {
      int sum = 0;
      for (int i = 16 * j; i < 16 * j + 16; ++i)
        sum += b.qs[i] = static_cast<std::int8_t>(code(rng));
      b.bsums[j] = static_cast<std::int16_t>(sum);
    }
  }
  const DotKernels& ref = scalar_kernels();
  REQUIRE((ref.q2_k_q8k != nullptr));
  auto check = [&]<class Block>(DType type, auto dot) {
    for (int round = 0; round < 8; ++round) {
      auto row = random_row<Block>(n / ggml::kQKK, 1.0f, rng);
      const auto* w = reinterpret_cast<const Block*>(row.data());
      const float want = dot(ref, w);
      for (const DotKernels* k : all_kernels()) {
        if (!wants_q8_k_rows(*k, type, 1)) continue;
        CAPTURE(tok::ggml::type_name(type));
        CAPTURE(static_cast<int>(k->isa));
        CHECK(dot(*k, w) == want);
      }
    }
  };
  check.operator()<ggml::BlockQ2_K>(
      DType::kQ2_K,
      [&](const DotKernels& k, const ggml::BlockQ2_K* w) { return k.q2_k_q8k(w, xk.data(), n); });
  check.operator()<ggml::BlockQ3_K>(
      DType::kQ3_K,
      [&](const DotKernels& k, const ggml::BlockQ3_K* w) { return k.q3_k_q8k(w, xk.data(), n); });
  check.operator()<ggml::BlockQ5_K>(
      DType::kQ5_K,
      [&](const DotKernels& k, const ggml::BlockQ5_K* w) { return k.q5_k_q8k(w, xk.data(), n); });
}

TEST_CASE(
    "Q8_K activation blocks: ggml's rounding, and bsums that are the sums of each 16 values") {
  std::vector<float> x(ggml::kQKK);
  for (int i = 0; i < ggml::kQKK; ++i)
    x[static_cast<std::size_t>(i)] = static_cast<float>(i % 7) - 3.5f;
  x[5] = -7;  // the value of largest magnitude is negative: scale -127 / -7
  ggml::BlockQ8_K b;
  quantize_row_q8_k(x.data(), &b, ggml::kQKK);
  CHECK(b.d == doctest::Approx(7.0 / 127));
  CHECK(b.qs[5] == -127);
  CHECK(b.qs[0] == -64);  // -3.5 * 127 / 7 = -63.5: ties to even
  for (int j = 0; j < ggml::kQKK / 16; ++j) {
    int s = 0;
    for (int i = 0; i < 16; ++i) s += b.qs[16 * j + i];
    CHECK(b.bsums[j] == s);
  }
  std::vector<float> zero(ggml::kQKK, 0.0f);
  quantize_row_q8_k(zero.data(), &b, ggml::kQKK);
  CHECK(b.d == 0);
  CHECK(b.qs[0] == 0);
}

TEST_CASE(
    "Q2_K to Q6_K rows take Q8_K activations one token at a time where the set has integer "
    "kernels") {
  for (const DotKernels* k : all_kernels()) {
    CAPTURE(static_cast<int>(k->isa));
    CHECK(wants_q8_k_rows(*k, DType::kQ4_K, 1) == (k->q4_k_q8k != nullptr));
    CHECK(wants_q8_k_rows(*k, DType::kQ6_K, 1) == (k->q6_k_q8k != nullptr));
    CHECK(wants_q8_k_rows(*k, DType::kQ2_K, 1) == (k->q2_k_q8k != nullptr));
    CHECK(wants_q8_k_rows(*k, DType::kQ3_K, 1) == (k->q3_k_q8k != nullptr));
    CHECK(wants_q8_k_rows(*k, DType::kQ5_K, 1) == (k->q5_k_q8k != nullptr));
    CHECK_FALSE(wants_q8_k_rows(*k, DType::kQ2_K, kKQuantTileMinTokens));
    CHECK_FALSE(
        wants_q8_k_rows(*k, DType::kQ4_K, kKQuantTileMinTokens));  // tiles: floats or int16 q8_K
    CHECK_FALSE(wants_q8_k_rows(*k, DType::kQ8_0, 1));
  }
}

TEST_CASE("the weight types with integer kernels ask for Q8_0 activations, the others for floats") {
  for (DType t : {DType::kQ8_0, DType::kQ4_0, DType::kQ4_1, DType::kQ5_0, DType::kQ5_1,
                  DType::kQ2_K, DType::kQ3_K, DType::kQ5_K}) {
    CHECK(wants_q8(t));
  }
  for (DType t : {DType::kF32, DType::kF16, DType::kBF16, DType::kQ4_K, DType::kQ6_K})
    CHECK_FALSE(wants_q8(t));
}

TEST_CASE("a Q5_0 row whose 5th bits are all set or all clear: codes 0..15 and -16..-1") {
  // Spot-check the bit order of qh against hand-computed values.
  ggml::BlockQ5_0 w{};
  w.d = ggml::f32_to_fp16(1.0f);
  for (int j = 0; j < ggml::kQK / 2; ++j) w.qs[j] = static_cast<std::uint8_t>(j | (j << 4));
  ggml::BlockQ8_0 x{};
  x.d = ggml::f32_to_fp16(1.0f);
  x.qs[3] = 1;   // element 3: nibble 3
  x.qs[20] = 1;  // element 20: nibble 4 (high nibble of byte 4)
  for (const DotKernels* k : all_kernels()) {
    CAPTURE(static_cast<int>(k->isa));
    std::memset(w.qh, 0, 4);
    CHECK(k->q5_0(&w, &x, ggml::kQK) == (3 - 16) + (4 - 16));
    std::memset(w.qh, 0xFF, 4);
    CHECK(k->q5_0(&w, &x, ggml::kQK) == 3 + 4);
    w.qh[2] = 0xEF;  // clears bit 20 only
    CHECK(k->q5_0(&w, &x, ggml::kQK) == 3 + (4 - 16));
  }
}
