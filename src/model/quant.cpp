#include "model/quant.hpp"

#include <algorithm>
#include <cmath>

namespace tok::model {

float fp16_to_f32(std::uint16_t h) {
  std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000) << 16;
  std::uint32_t exp = (h >> 10) & 0x1F, mant = h & 0x3FF, u;
  if (exp == 0) {
    if (mant == 0) {
      u = sign;
    } else {  // subnormal: normalise
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while (!(mant & 0x400));
      u = sign | static_cast<std::uint32_t>(127 - 15 - e) << 23 | (mant & 0x3FF) << 13;
    }
  } else if (exp == 31) {
    u = sign | 0x7F800000 | mant << 13;
  } else {
    u = sign | (exp + 112) << 23 | mant << 13;
  }
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

std::uint16_t f32_to_fp16(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  std::uint32_t sign = (u >> 16) & 0x8000;
  std::uint32_t abs = u & 0x7FFFFFFF;
  if (abs >= 0x7F800000) return static_cast<std::uint16_t>(sign | 0x7C00 | (abs > 0x7F800000 ? 0x200 : 0));
  if (abs >= 0x477FF000) return static_cast<std::uint16_t>(sign | 0x7C00);  // overflow -> inf
  if (abs < 0x38800000) {  // subnormal half (or zero): round at the right bit
    float a;
    std::memcpy(&a, &abs, 4);
    std::uint32_t m = static_cast<std::uint32_t>(std::nearbyint(a * 16777216.0f));  // a / 2^-24
    return static_cast<std::uint16_t>(sign | m);
  }
  std::uint32_t r = abs + 0xFFF + ((abs >> 13) & 1);  // round to nearest even
  return static_cast<std::uint16_t>(sign | ((r - 0x38000000) >> 13));
}

void scale_min_k4(int j, const std::uint8_t* q, std::uint8_t& d, std::uint8_t& m) {
  if (j < 4) {
    d = q[j] & 63;
    m = q[j + 4] & 63;
  } else {
    d = static_cast<std::uint8_t>((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
    m = static_cast<std::uint8_t>((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
  }
}

std::uint16_t f32_to_bf16(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7FFFFFFF) > 0x7F800000) return static_cast<std::uint16_t>((u >> 16) | 64);  // quiet NaN
  return static_cast<std::uint16_t>((u + 0x7FFF + ((u >> 16) & 1)) >> 16);
}

namespace {

void dequant_q4_k(const BlockQ4_K* x, float* y, std::int64_t nb) {
  for (std::int64_t i = 0; i < nb; ++i) {
    const std::uint8_t* q = x[i].qs;
    float d = fp16_to_f32(x[i].d), dmin = fp16_to_f32(x[i].dmin);
    for (int j = 0, is = 0; j < kQKK; j += 64, is += 2, q += 32) {
      std::uint8_t sc, m;
      scale_min_k4(is, x[i].scales, sc, m);
      float d1 = d * sc, m1 = dmin * m;
      scale_min_k4(is + 1, x[i].scales, sc, m);
      float d2 = d * sc, m2 = dmin * m;
      for (int l = 0; l < 32; ++l) *y++ = d1 * (q[l] & 0xF) - m1;
      for (int l = 0; l < 32; ++l) *y++ = d2 * (q[l] >> 4) - m2;
    }
  }
}

void dequant_q6_k(const BlockQ6_K* x, float* y, std::int64_t nb) {
  for (std::int64_t i = 0; i < nb; ++i) {
    float d = fp16_to_f32(x[i].d);
    const std::uint8_t* ql = x[i].ql;
    const std::uint8_t* qh = x[i].qh;
    const std::int8_t* sc = x[i].scales;
    for (int n = 0; n < kQKK; n += 128, y += 128, ql += 64, qh += 32, sc += 8) {
      for (int l = 0; l < 32; ++l) {
        int is = l / 16;
        int q1 = ((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
        int q2 = ((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
        int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
        int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
        y[l] = d * sc[is] * q1;
        y[l + 32] = d * sc[is + 2] * q2;
        y[l + 64] = d * sc[is + 4] * q3;
        y[l + 96] = d * sc[is + 6] * q4;
      }
    }
  }
}

}  // namespace

void dequantize_row(DType type, const void* src, float* y, std::int64_t n) {
  switch (type) {
    case DType::kF32:
      std::memcpy(y, src, static_cast<std::size_t>(n) * 4);
      return;
    case DType::kF16: {
      auto* h = static_cast<const std::uint16_t*>(src);
      for (std::int64_t i = 0; i < n; ++i) y[i] = fp16_to_f32(h[i]);
      return;
    }
    case DType::kBF16: {
      auto* h = static_cast<const std::uint16_t*>(src);
      for (std::int64_t i = 0; i < n; ++i) y[i] = bf16_to_f32(h[i]);
      return;
    }
    case DType::kQ8_0: {
      auto* b = static_cast<const BlockQ8_0*>(src);
      for (std::int64_t i = 0; i < n / kQK; ++i) {
        float d = fp16_to_f32(b[i].d);
        for (int j = 0; j < kQK; ++j) y[i * kQK + j] = d * b[i].qs[j];
      }
      return;
    }
    case DType::kQ4_0: {
      auto* b = static_cast<const BlockQ4_0*>(src);
      for (std::int64_t i = 0; i < n / kQK; ++i) {
        float d = fp16_to_f32(b[i].d);
        for (int j = 0; j < kQK / 2; ++j) {
          y[i * kQK + j] = d * ((b[i].qs[j] & 0xF) - 8);
          y[i * kQK + j + kQK / 2] = d * ((b[i].qs[j] >> 4) - 8);
        }
      }
      return;
    }
    case DType::kQ4_K:
      dequant_q4_k(static_cast<const BlockQ4_K*>(src), y, n / kQKK);
      return;
    case DType::kQ6_K:
      dequant_q6_k(static_cast<const BlockQ6_K*>(src), y, n / kQKK);
      return;
  }
}

void quantize_row_q8_0(const float* x, BlockQ8_0* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n / kQK; ++i, x += kQK) {
    float amax = 0;
    for (int j = 0; j < kQK; ++j) amax = std::max(amax, std::fabs(x[j]));
    float d = amax / 127.0f, id = d != 0 ? 1.0f / d : 0.0f;
    y[i].d = f32_to_fp16(d);
    for (int j = 0; j < kQK; ++j) y[i].qs[j] = static_cast<std::int8_t>(std::lround(x[j] * id));
  }
}

void quantize_act_q8_0(const float* x, BlockQ8_0* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n / kQK; ++i, x += kQK) {
    float amax = 0;
    for (int j = 0; j < kQK; ++j) amax = std::max(amax, std::fabs(x[j]));
    float id = amax != 0 ? 127.0f / amax : 0.0f;
    y[i].d = f32_to_fp16(amax / 127.0f);
    for (int j = 0; j < kQK; ++j) y[i].qs[j] = static_cast<std::int8_t>(std::nearbyint(x[j] * id));
  }
}

void quantize_row_q4_0(const float* x, BlockQ4_0* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n / kQK; ++i, x += kQK) {
    float amax = 0, max = 0;
    for (int j = 0; j < kQK; ++j) {
      if (amax < std::fabs(x[j])) {
        amax = std::fabs(x[j]);
        max = x[j];
      }
    }
    float d = max / -8, id = d != 0 ? 1.0f / d : 0.0f;
    y[i].d = f32_to_fp16(d);
    for (int j = 0; j < kQK / 2; ++j) {
      int a = std::min(15, static_cast<int>(static_cast<std::int8_t>(x[j] * id + 8.5f)));
      int b = std::min(15, static_cast<int>(static_cast<std::int8_t>(x[kQK / 2 + j] * id + 8.5f)));
      y[i].qs[j] = static_cast<std::uint8_t>(a | (b << 4));
    }
  }
}

}  // namespace tok::model
