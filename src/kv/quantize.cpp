// Row encoders for the KV storage types.
//
// Error bounds (d = the stored f16 scale of a block, as dequantization uses it):
//  * q8_0: d = f16(absmax / 127), q = clamp(round(x / d), -127, 127). We divide
//    by the *stored* (rounded) scale, unlike ggml which divides by the exact
//    one, so rounding gives |x - q d| <= d / 2 for every unclamped value; a
//    value is clamped only when f16 rounding made 127 d < absmax, and then
//    the error is absmax - 127 d <= 127 * absmax/127 * 2^-11 < d / 2 too.
//    Hence max |error| <= d / 2 per block.
//  * q4_0 (ggml's rule): m = the value of largest magnitude, with its sign,
//    d = f16(m / -8), q = clamp(floor(x / d + 8.5), 0, 15), x ~ (q - 8) d.
//    The codes reach (q - 8) d for q - 8 in [-8, 7], so m itself is exact up
//    to f16 rounding and every x with x / d in [-8.5, 7.5] has error <= |d|/2.
//    Values of the sign opposite to m with |x| > 7.5 |d| are clamped to 7 d:
//    error <= absmax - 7|d|, which is |d| when d is exact and at most
//    |d| (1 + 2^-8) after f16 rounding (absmax <= 8 |d| (1 + 2^-11)). So
//    max |error| <= absmax/8 (+ f16 rounding), and <= |d| / 2 except for
//    those opposite-sign extremes.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "kv/half.hpp"
#include "kv/kv_type.hpp"

namespace tok::kv {
namespace {

void put_half(std::uint8_t* p, std::uint16_t h) {
  p[0] = static_cast<std::uint8_t>(h & 0xff);
  p[1] = static_cast<std::uint8_t>(h >> 8);
}

std::uint16_t get_half(const std::uint8_t* p) {
  return static_cast<std::uint16_t>(p[0] | (p[1] << 8));
}

void quantize_q8_0(const float* x, std::uint8_t* out) {
  float amax = 0.0f;
  for (int i = 0; i < kQuantBlock; ++i) amax = std::max(amax, std::fabs(x[i]));
  std::uint16_t dh = float_to_half(amax / 127.0f);
  float d = half_to_float(dh);
  put_half(out, dh);
  auto* q = reinterpret_cast<std::int8_t*>(out + 2);
  for (int i = 0; i < kQuantBlock; ++i) {
    float v = d > 0.0f ? std::nearbyint(x[i] / d) : 0.0f;
    q[i] = static_cast<std::int8_t>(std::clamp(v, -127.0f, 127.0f));
  }
}

void dequantize_q8_0(const std::uint8_t* in, float* x) {
  float d = half_to_float(get_half(in));
  const auto* q = reinterpret_cast<const std::int8_t*>(in + 2);
  for (int i = 0; i < kQuantBlock; ++i) x[i] = static_cast<float>(q[i]) * d;
}

void quantize_q4_0(const float* x, std::uint8_t* out) {
  float amax = 0.0f, m = 0.0f;
  for (int i = 0; i < kQuantBlock; ++i) {
    if (std::fabs(x[i]) > amax) {
      amax = std::fabs(x[i]);
      m = x[i];
    }
  }
  std::uint16_t dh = float_to_half(m / -8.0f);
  float d = half_to_float(dh);
  put_half(out, dh);
  auto code = [&](float v) {
    if (d == 0.0f) return 8;
    return static_cast<int>(std::clamp(std::floor(v / d + 8.5f), 0.0f, 15.0f));
  };
  // ggml's nibble order: byte j holds element j (low) and element j + 16 (high).
  for (int j = 0; j < kQuantBlock / 2; ++j) {
    out[2 + j] = static_cast<std::uint8_t>(code(x[j]) | (code(x[j + kQuantBlock / 2]) << 4));
  }
}

void dequantize_q4_0(const std::uint8_t* in, float* x) {
  float d = half_to_float(get_half(in));
  for (int j = 0; j < kQuantBlock / 2; ++j) {
    x[j] = static_cast<float>((in[2 + j] & 0x0f) - 8) * d;
    x[j + kQuantBlock / 2] = static_cast<float>((in[2 + j] >> 4) - 8) * d;
  }
}

}  // namespace

Result<KvType> parse_kv_type(std::string_view s) {
  if (s == "f32") return KvType::kF32;
  if (s == "f16") return KvType::kF16;
  if (s == "q8_0") return KvType::kQ8_0;
  if (s == "q4_0") return KvType::kQ4_0;
  return make_error("unknown KV type '{}': expected f32, f16, q8_0 or q4_0", s);
}

std::string_view kv_type_name(KvType t) {
  switch (t) {
    case KvType::kF32:
      return "f32";
    case KvType::kF16:
      return "f16";
    case KvType::kQ8_0:
      return "q8_0";
    case KvType::kQ4_0:
      return "q4_0";
  }
  return "?";
}

bool is_quantized(KvType t) {
  return t == KvType::kQ8_0 || t == KvType::kQ4_0;
}

Result<std::size_t> row_bytes(KvType t, int n) {
  if (n <= 0) return make_error("KV row of {} values: must be positive", n);
  auto un = static_cast<std::size_t>(n);
  switch (t) {
    case KvType::kF32:
      return un * 4;
    case KvType::kF16:
      return un * 2;
    case KvType::kQ8_0:
    case KvType::kQ4_0:
      if (n % kQuantBlock != 0) {
        return make_error(
            "KV type {} needs a row (kv_heads * head_dim = {}) that is a multiple of {}",
            kv_type_name(t), n, kQuantBlock);
      }
      return un / kQuantBlock * (t == KvType::kQ8_0 ? kQ8_0Bytes : kQ4_0Bytes);
  }
  return make_error("KV type: bad value");
}

void quantize_row(KvType t, const float* src, int n, std::uint8_t* dst) {
  switch (t) {
    case KvType::kF32:
      std::memcpy(dst, src, static_cast<std::size_t>(n) * 4);
      return;
    case KvType::kF16:
      for (int i = 0; i < n; ++i) put_half(dst + 2 * i, float_to_half(src[i]));
      return;
    case KvType::kQ8_0:
      for (int b = 0; b < n / kQuantBlock; ++b)
        quantize_q8_0(src + b * kQuantBlock, dst + b * kQ8_0Bytes);
      return;
    case KvType::kQ4_0:
      for (int b = 0; b < n / kQuantBlock; ++b)
        quantize_q4_0(src + b * kQuantBlock, dst + b * kQ4_0Bytes);
      return;
  }
}

void dequantize_row(KvType t, const std::uint8_t* src, int n, float* dst) {
  switch (t) {
    case KvType::kF32:
      std::memcpy(dst, src, static_cast<std::size_t>(n) * 4);
      return;
    case KvType::kF16:
      halves_to_floats(src, n, dst);
      return;
    case KvType::kQ8_0:
      for (int b = 0; b < n / kQuantBlock; ++b)
        dequantize_q8_0(src + b * kQ8_0Bytes, dst + b * kQuantBlock);
      return;
    case KvType::kQ4_0:
      for (int b = 0; b < n / kQuantBlock; ++b)
        dequantize_q4_0(src + b * kQ4_0Bytes, dst + b * kQuantBlock);
      return;
  }
}

}  // namespace tok::kv
