// Quantizers for the K-quants. tok's own, simpler than llama.cpp's
// (make_qkx2_quants / make_q3_quants search for the best scale): each
// sub-block maps its [min(0, min), max] (affine types) or its value of
// largest magnitude (symmetric types) onto the code range, then the
// sub-block scales are quantized against the super-block scale. Values are
// coded against the scales as stored (fp16 and 4/6/8-bit), so the rounding
// error of the scales does not add to the coding error. Used to make test
// models; the layouts are exactly llama.cpp's.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "ggml/half.hpp"
#include "ggml/quants.hpp"

namespace tok::ggml {
namespace {

int nearest(float v) { return static_cast<int>(std::lround(v)); }

// Affine sub-blocks: x ~ d * ls[j] * q - dmin * lm[j], q in 0..nmax; ls and
// lm in 0..levels. Writes the codes to L (k values) and the fp16 scales.
struct AffineCodes {
  std::uint16_t d, dmin;
  std::uint8_t ls[16], lm[16];
  std::uint8_t L[kQKK];
};

void affine_codes(const float* x, int sub, int nmax, int levels, AffineCodes& c) {
  const int ns = kQKK / sub;
  float scale[16], min[16], max_scale = 0, max_min = 0;
  for (int j = 0; j < ns; ++j) {
    float lo = 0, hi = x[j * sub];
    for (int l = 0; l < sub; ++l) {
      lo = std::min(lo, x[j * sub + l]);
      hi = std::max(hi, x[j * sub + l]);
    }
    scale[j] = std::max(0.0f, hi - lo) / static_cast<float>(nmax);
    min[j] = -lo;
    max_scale = std::max(max_scale, scale[j]);
    max_min = std::max(max_min, min[j]);
  }
  c.d = f32_to_fp16(max_scale / static_cast<float>(levels));
  c.dmin = f32_to_fp16(max_min / static_cast<float>(levels));
  float d = fp16_to_f32(c.d), dmin = fp16_to_f32(c.dmin);
  for (int j = 0; j < ns; ++j) {
    c.ls[j] = static_cast<std::uint8_t>(d > 0 ? std::clamp(nearest(scale[j] / d), 0, levels) : 0);
    c.lm[j] =
        static_cast<std::uint8_t>(dmin > 0 ? std::clamp(nearest(min[j] / dmin), 0, levels) : 0);
    float dl = d * c.ls[j], ml = dmin * c.lm[j];
    for (int l = 0; l < sub; ++l) {
      int q = dl > 0 ? std::clamp(nearest((x[j * sub + l] + ml) / dl), 0, nmax) : 0;
      c.L[j * sub + l] = static_cast<std::uint8_t>(q);
    }
  }
}

// Symmetric 16-value sub-blocks: x ~ d * ls[j] * q, q in -neg..neg-1, ls in
// -scale_neg..scale_neg-1. Codes are stored as q + neg in L.
struct SymmetricCodes {
  std::uint16_t d;
  int ls[16];
  std::uint8_t L[kQKK];
};

void symmetric_codes(const float* x, int neg, int scale_neg, SymmetricCodes& c) {
  float scale[16], max_scale = 0;
  for (int j = 0; j < 16; ++j) {
    float amax = 0, m = 0;
    for (int l = 0; l < 16; ++l) {
      if (std::fabs(x[16 * j + l]) > amax) {
        amax = std::fabs(x[16 * j + l]);
        m = x[16 * j + l];
      }
    }
    scale[j] = m / static_cast<float>(-neg);
    if (std::fabs(scale[j]) > std::fabs(max_scale)) max_scale = scale[j];
  }
  float iscale = max_scale != 0 ? static_cast<float>(-scale_neg) / max_scale : 0.0f;
  c.d = f32_to_fp16(iscale != 0 ? 1.0f / iscale : 0.0f);
  float d = fp16_to_f32(c.d);
  for (int j = 0; j < 16; ++j) {
    c.ls[j] = std::clamp(nearest(iscale * scale[j]), -scale_neg, scale_neg - 1);
    float dl = d * static_cast<float>(c.ls[j]);
    for (int l = 0; l < 16; ++l) {
      int q = dl != 0 ? std::clamp(nearest(x[16 * j + l] / dl), -neg, neg - 1) : 0;
      c.L[16 * j + l] = static_cast<std::uint8_t>(q + neg);
    }
  }
}

// Q4_K / Q5_K's 12-byte packing of eight 6-bit (scale, min) pairs; the
// inverse of scale_min_k4.
void pack_scale_min_k4(const std::uint8_t* ls, const std::uint8_t* lm, std::uint8_t* out) {
  std::memset(out, 0, 12);
  for (int j = 0; j < 8; ++j) {
    if (j < 4) {
      out[j] = ls[j];
      out[j + 4] = lm[j];
    } else {
      out[j + 4] = static_cast<std::uint8_t>((ls[j] & 0xF) | ((lm[j] & 0xF) << 4));
      out[j - 4] |= static_cast<std::uint8_t>((ls[j] >> 4) << 6);
      out[j] |= static_cast<std::uint8_t>((lm[j] >> 4) << 6);
    }
  }
}

// Two-bit fields of Q2_K and Q3_K: element 128 h + 32 j + l at bits 2j of
// qs[32 h + l].
void pack_2bit(const std::uint8_t* L, std::uint8_t* qs) {
  for (int h = 0; h < 2; ++h) {
    for (int l = 0; l < 32; ++l) {
      const std::uint8_t* e = L + 128 * h + l;
      qs[32 * h + l] = static_cast<std::uint8_t>((e[0] & 3) | (e[32] & 3) << 2 | (e[64] & 3) << 4 |
                                                 (e[96] & 3) << 6);
    }
  }
}

}  // namespace

void quantize_row_q2_k(const float* x, BlockQ2_K* y, std::int64_t n) {
  AffineCodes c;
  for (std::int64_t i = 0; i < n / kQKK; ++i, x += kQKK) {
    affine_codes(x, 16, 3, 15, c);
    y[i].d = c.d;
    y[i].dmin = c.dmin;
    for (int j = 0; j < 16; ++j)
      y[i].scales[j] = static_cast<std::uint8_t>(c.ls[j] | (c.lm[j] << 4));
    pack_2bit(c.L, y[i].qs);
  }
}

void quantize_row_q3_k(const float* x, BlockQ3_K* y, std::int64_t n) {
  SymmetricCodes c;
  for (std::int64_t i = 0; i < n / kQKK; ++i, x += kQKK) {
    symmetric_codes(x, 4, 32, c);
    y[i].d = c.d;
    std::memset(y[i].scales, 0, 12);
    for (int j = 0; j < 16; ++j) {
      int l = c.ls[j] + 32;
      if (j < 8) {
        y[i].scales[j] = static_cast<std::uint8_t>(l & 0xF);
      } else {
        y[i].scales[j - 8] |= static_cast<std::uint8_t>((l & 0xF) << 4);
      }
      y[i].scales[8 + j % 4] |= static_cast<std::uint8_t>((l >> 4) << (2 * (j / 4)));
    }
    std::memset(y[i].hmask, 0, sizeof y[i].hmask);
    for (int e = 0; e < kQKK; ++e) {
      if (c.L[e] > 3) y[i].hmask[e % 32] |= static_cast<std::uint8_t>(1u << (e / 32));
    }
    pack_2bit(c.L, y[i].qs);
  }
}

void quantize_row_q4_k(const float* x, BlockQ4_K* y, std::int64_t n) {
  AffineCodes c;
  for (std::int64_t i = 0; i < n / kQKK; ++i, x += kQKK) {
    affine_codes(x, 32, 15, 63, c);
    y[i].d = c.d;
    y[i].dmin = c.dmin;
    pack_scale_min_k4(c.ls, c.lm, y[i].scales);
    for (int k = 0; k < 4; ++k) {
      for (int l = 0; l < 32; ++l) {
        y[i].qs[32 * k + l] =
            static_cast<std::uint8_t>(c.L[64 * k + l] | (c.L[64 * k + 32 + l] << 4));
      }
    }
  }
}

void quantize_row_q5_k(const float* x, BlockQ5_K* y, std::int64_t n) {
  AffineCodes c;
  for (std::int64_t i = 0; i < n / kQKK; ++i, x += kQKK) {
    affine_codes(x, 32, 31, 63, c);
    y[i].d = c.d;
    y[i].dmin = c.dmin;
    pack_scale_min_k4(c.ls, c.lm, y[i].scales);
    std::memset(y[i].qh, 0, sizeof y[i].qh);
    for (int k = 0; k < 4; ++k) {
      for (int l = 0; l < 32; ++l) {
        int a = c.L[64 * k + l], b = c.L[64 * k + 32 + l];
        y[i].qs[32 * k + l] = static_cast<std::uint8_t>((a & 0xF) | ((b & 0xF) << 4));
        y[i].qh[l] |= static_cast<std::uint8_t>((a >> 4) << (2 * k) | (b >> 4) << (2 * k + 1));
      }
    }
  }
}

void quantize_row_q6_k(const float* x, BlockQ6_K* y, std::int64_t n) {
  SymmetricCodes c;
  for (std::int64_t i = 0; i < n / kQKK; ++i, x += kQKK) {
    symmetric_codes(x, 32, 128, c);
    y[i].d = c.d;
    for (int j = 0; j < 16; ++j) y[i].scales[j] = static_cast<std::int8_t>(c.ls[j]);
    for (int h = 0; h < 2; ++h) {
      std::uint8_t* ql = y[i].ql + 64 * h;
      std::uint8_t* qh = y[i].qh + 32 * h;
      for (int l = 0; l < 32; ++l) {
        const std::uint8_t* e = c.L + 128 * h + l;
        ql[l] = static_cast<std::uint8_t>((e[0] & 0xF) | ((e[64] & 0xF) << 4));
        ql[l + 32] = static_cast<std::uint8_t>((e[32] & 0xF) | ((e[96] & 0xF) << 4));
        qh[l] = static_cast<std::uint8_t>((e[0] >> 4) | (e[32] >> 4) << 2 | (e[64] >> 4) << 4 |
                                          (e[96] >> 4) << 6);
      }
    }
  }
}

}  // namespace tok::ggml
