// Dequantization of the K-quants (256-value super-blocks): Q2_K, Q3_K,
// Q4_K, Q5_K, Q6_K, laid out as llama.cpp's dequantize_row_*_K read them.
#include <cstring>

#include "ggml/half.hpp"
#include "ggml/quants.hpp"

namespace tok::ggml {

// Element e = 128 h + 32 j + l (half h, quarter j, l < 32) of Q2_K and Q3_K
// is bits 2j..2j+1 of qs[32 h + l]; its 16-wide sub-block is e / 16.
void dequantize_row_q2_k(const BlockQ2_K* x, float* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n / kQKK; ++i) {
    float d = fp16_to_f32(x[i].d), dmin = fp16_to_f32(x[i].dmin);
    const std::uint8_t* q = x[i].qs;
    int is = 0;
    for (int h = 0; h < 2; ++h, q += 32) {
      for (int shift = 0; shift < 8; shift += 2) {
        for (int half = 0; half < 2; ++half) {
          std::uint8_t sc = x[i].scales[is++];
          float dl = d * (sc & 0xF), ml = dmin * (sc >> 4);
          for (int l = 0; l < 16; ++l) *y++ = dl * ((q[16 * half + l] >> shift) & 3) - ml;
        }
      }
    }
  }
}

namespace {
// The 16 6-bit scales of a Q3_K block, unpacked: scale j's low 4 bits are
// in byte j % 8 (low nibble for j < 8, high nibble after), its high 2 bits
// in byte 8 + j % 4 at bit 2 (j / 4).
void q3_k_scales(const std::uint8_t* p, int* out) {
  for (int j = 0; j < 16; ++j) {
    int low = j < 8 ? p[j] & 0xF : p[j - 8] >> 4;
    int high = (p[8 + j % 4] >> (2 * (j / 4))) & 3;
    out[j] = (low | (high << 4)) - 32;
  }
}
}  // namespace

void dequantize_row_q3_k(const BlockQ3_K* x, float* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n / kQKK; ++i) {
    float d = fp16_to_f32(x[i].d);
    int scales[16];
    q3_k_scales(x[i].scales, scales);
    const std::uint8_t* q = x[i].qs;
    const std::uint8_t* hm = x[i].hmask;
    int is = 0;
    std::uint8_t m = 1;
    for (int h = 0; h < 2; ++h, q += 32) {
      for (int shift = 0; shift < 8; shift += 2, m = static_cast<std::uint8_t>(m << 1)) {
        for (int half = 0; half < 2; ++half) {
          float dl = d * static_cast<float>(scales[is++]);
          for (int l = 16 * half; l < 16 * half + 16; ++l) {
            int v = ((q[l] >> shift) & 3) - ((hm[l] & m) ? 0 : 4);
            *y++ = dl * static_cast<float>(v);
          }
        }
      }
    }
  }
}

void dequantize_row_q4_k(const BlockQ4_K* x, float* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n / kQKK; ++i) {
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

// As Q4_K; the 5th bit of element 64 k + l (l < 32) is bit 2k of qh[l], of
// element 64 k + 32 + l bit 2k + 1.
void dequantize_row_q5_k(const BlockQ5_K* x, float* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n / kQKK; ++i) {
    const std::uint8_t* q = x[i].qs;
    const std::uint8_t* qh = x[i].qh;
    float d = fp16_to_f32(x[i].d), dmin = fp16_to_f32(x[i].dmin);
    for (int k = 0; k < 4; ++k, q += 32) {
      std::uint8_t sc, m;
      scale_min_k4(2 * k, x[i].scales, sc, m);
      float d1 = d * sc, m1 = dmin * m;
      scale_min_k4(2 * k + 1, x[i].scales, sc, m);
      float d2 = d * sc, m2 = dmin * m;
      for (int l = 0; l < 32; ++l)
        *y++ = d1 * ((q[l] & 0xF) + (((qh[l] >> (2 * k)) & 1) << 4)) - m1;
      for (int l = 0; l < 32; ++l)
        *y++ = d2 * ((q[l] >> 4) + (((qh[l] >> (2 * k + 1)) & 1) << 4)) - m2;
    }
  }
}

void dequantize_row_q6_k(const BlockQ6_K* x, float* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n / kQKK; ++i) {
    float d = fp16_to_f32(x[i].d);
    const std::uint8_t* ql = x[i].ql;
    const std::uint8_t* qh = x[i].qh;
    const std::int8_t* sc = x[i].scales;
    for (int h = 0; h < kQKK; h += 128, y += 128, ql += 64, qh += 32, sc += 8) {
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

}  // namespace tok::ggml
