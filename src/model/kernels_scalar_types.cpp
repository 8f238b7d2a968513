// Portable reference kernels for Q4_1, Q5_0, Q5_1 (integer dots) and Q2_K,
// Q3_K, Q5_K (reference dequantization, then float dots), all with Q8_0
// activations: the definition of what their SIMD kernels compute. And Q2_K,
// Q3_K, Q5_K on Q8_K activations (decode): the integer sums of ggml's
// ggml_vec_dot_q2_K_q8_K / q3_K_q8_K / q5_K_q8_K, then per super-block
// d_x d_w isum - d_x dmin_w summs, as llama.cpp's generic code does.
#include "model/kernels.hpp"

#include "ggml/half.hpp"

namespace tok::model::scalar {
namespace {

// Element j (0..31) of a 32-value block: nibble j (low nibbles are elements
// 0..15, high nibbles 16..31), plus bit j of qh as the 5th bit for Q5_0 /
// Q5_1 (qh is a little-endian uint32).
template <class Block>
int code(const Block& b, int j) {
  int q = j < ggml::kQK / 2 ? b.qs[j] & 0xF : b.qs[j - ggml::kQK / 2] >> 4;
  if constexpr (requires { b.qh; }) q |= ((b.qh[j / 8] >> (j % 8)) & 1) << 4;
  return q;
}

// Q5_0 stores q - 16; Q4_1 and Q5_1 store d * q + m, and
// sum((d q + m) * dx xq) = d dx sum(q xq) + m dx sum(xq): integer sums, then
// two products per block, as llama.cpp's Q8_1 kernels do.
template <class Block>
float dot_small(const Block* w, const ggml::BlockQ8_0* x, std::int64_t n) {
  float s = 0;
  for (std::int64_t b = 0; b < n / ggml::kQK; ++b) {
    int dot = 0, sum = 0;
    for (int j = 0; j < ggml::kQK; ++j) {
      dot += code(w[b], j) * x[b].qs[j];
      sum += x[b].qs[j];
    }
    float d = ggml::fp16_to_f32(w[b].d) * ggml::fp16_to_f32(x[b].d);
    if constexpr (requires { w[b].m; }) {
      s += d * static_cast<float>(dot) +
           ggml::fp16_to_f32(w[b].m) * ggml::fp16_to_f32(x[b].d) * static_cast<float>(sum);
    } else {
      s += d * static_cast<float>(dot - 16 * sum);
    }
  }
  return s;
}

// A K-quant super-block by reference dequantization, then one float sum per
// Q8_0 block times its scale.
template <DType kType, class Block>
float dot_k(const Block* w, const ggml::BlockQ8_0* x, std::int64_t n) {
  float buf[ggml::kQKK];
  float s = 0;
  for (std::int64_t b = 0; b < n / ggml::kQKK; ++b, x += ggml::kQKK / ggml::kQK) {
    dequantize_row(kType, w + b, buf, ggml::kQKK);
    for (int j = 0; j < ggml::kQKK / ggml::kQK; ++j) {
      float t = 0;
      for (int l = 0; l < ggml::kQK; ++l)
        t += buf[ggml::kQK * j + l] * static_cast<float>(x[j].qs[l]);
      s += ggml::fp16_to_f32(x[j].d) * t;
    }
  }
  return s;
}

// The 16 signed 6-bit scales of a Q3_K super-block (ggml's packing: low
// nibbles in bytes 0..7, high 2 bits in bytes 8..11), minus 32.
void q3_k_scales(const std::uint8_t* p, int* sc) {
  for (int j = 0; j < 16; ++j) {
    int low = j < 8 ? p[j] & 0xF : p[j - 8] >> 4;
    sc[j] = (low | (((p[8 + j % 4] >> (2 * (j / 4))) & 3) << 4)) - 32;
  }
}

// Value i (< 256) of a Q2_K / Q3_K super-block: 128 h + 32 k + l sits at
// bits 2k of qs[32 h + l] (Q3_K: its high bit at bit 4h + k of hmask[l]).
inline int low2(const std::uint8_t* qs, int i) {
  return (qs[32 * (i / 128) + i % 32] >> (2 * (i % 128 / 32))) & 3;
}

}  // namespace

float dot_q2_k_q8k(const ggml::BlockQ2_K* w, const ggml::BlockQ8_K* x, std::int64_t n) {
  float s = 0;
  for (std::int64_t b = 0; b < n / ggml::kQKK; ++b) {
    int isum = 0, summs = 0;
    for (int j = 0; j < 16; ++j) {
      int dot = 0;
      for (int i = 16 * j; i < 16 * j + 16; ++i) dot += low2(w[b].qs, i) * x[b].qs[i];
      isum += (w[b].scales[j] & 0xF) * dot;
      summs += (w[b].scales[j] >> 4) * x[b].bsums[j];
    }
    const float dall = x[b].d * ggml::fp16_to_f32(w[b].d);
    const float dmin = x[b].d * ggml::fp16_to_f32(w[b].dmin);
    s += dall * static_cast<float>(isum) - dmin * static_cast<float>(summs);
  }
  return s;
}

float dot_q3_k_q8k(const ggml::BlockQ3_K* w, const ggml::BlockQ8_K* x, std::int64_t n) {
  float s = 0;
  for (std::int64_t b = 0; b < n / ggml::kQKK; ++b) {
    int sc[16];
    q3_k_scales(w[b].scales, sc);
    int isum = 0;
    for (int j = 0; j < 16; ++j) {
      int dot = 0;
      for (int i = 16 * j; i < 16 * j + 16; ++i) {
        const int high = (w[b].hmask[i % 32] >> (4 * (i / 128) + i % 128 / 32)) & 1;
        dot += (low2(w[b].qs, i) - (high ? 0 : 4)) * x[b].qs[i];
      }
      isum += sc[j] * dot;
    }
    s += x[b].d * ggml::fp16_to_f32(w[b].d) * static_cast<float>(isum);
  }
  return s;
}

// Q5_K: value 64 k + l (l < 32) is the low nibble of qs[32 k + l] plus 16
// times bit 2k of qh[l]; value 64 k + 32 + l the high nibble and bit 2k + 1.
float dot_q5_k_q8k(const ggml::BlockQ5_K* w, const ggml::BlockQ8_K* x, std::int64_t n) {
  float s = 0;
  for (std::int64_t b = 0; b < n / ggml::kQKK; ++b) {
    int isum = 0, summs = 0;
    for (int j = 0; j < 8; ++j) {
      std::uint8_t sc, m;
      ggml::scale_min_k4(j, w[b].scales, sc, m);
      int dot = 0;
      for (int l = 0; l < 32; ++l) {
        const std::uint8_t q = w[b].qs[32 * (j / 2) + l];
        const int code = (j % 2 ? q >> 4 : q & 0xF) + 16 * ((w[b].qh[l] >> j) & 1);
        dot += code * x[b].qs[32 * j + l];
      }
      isum += sc * dot;
      summs += m * (x[b].bsums[2 * j] + x[b].bsums[2 * j + 1]);
    }
    const float d = x[b].d * ggml::fp16_to_f32(w[b].d);
    const float dmin = x[b].d * ggml::fp16_to_f32(w[b].dmin);
    s += d * static_cast<float>(isum) - dmin * static_cast<float>(summs);
  }
  return s;
}

float dot_q4_1(const ggml::BlockQ4_1* w, const ggml::BlockQ8_0* x, std::int64_t n) {
  return dot_small(w, x, n);
}
float dot_q5_0(const ggml::BlockQ5_0* w, const ggml::BlockQ8_0* x, std::int64_t n) {
  return dot_small(w, x, n);
}
float dot_q5_1(const ggml::BlockQ5_1* w, const ggml::BlockQ8_0* x, std::int64_t n) {
  return dot_small(w, x, n);
}
float dot_q2_k(const ggml::BlockQ2_K* w, const ggml::BlockQ8_0* x, std::int64_t n) {
  return dot_k<DType::kQ2_K>(w, x, n);
}
float dot_q3_k(const ggml::BlockQ3_K* w, const ggml::BlockQ8_0* x, std::int64_t n) {
  return dot_k<DType::kQ3_K>(w, x, n);
}
float dot_q5_k(const ggml::BlockQ5_K* w, const ggml::BlockQ8_0* x, std::int64_t n) {
  return dot_k<DType::kQ5_K>(w, x, n);
}

}  // namespace tok::model::scalar
