#include "model/ops.hpp"

#include <cmath>
#include <vector>

namespace tok::model {

void rmsnorm(float* out, const float* x, const float* w, std::int64_t n, float eps) {
  double ss = 0;  // double: the sum of squares over thousands of values
  for (std::int64_t i = 0; i < n; ++i) ss += static_cast<double>(x[i]) * x[i];
  float scale = static_cast<float>(1.0 / std::sqrt(ss / static_cast<double>(n) + eps));
  for (std::int64_t i = 0; i < n; ++i) out[i] = x[i] * scale * w[i];
}

void softmax(float* x, std::int64_t n) {
  float max = x[0];
  for (std::int64_t i = 1; i < n; ++i) max = x[i] > max ? x[i] : max;
  float sum = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    x[i] = std::exp(x[i] - max);
    sum += x[i];
  }
  float inv = 1.0f / sum;
  for (std::int64_t i = 0; i < n; ++i) x[i] *= inv;
}

void rope_angles(std::int64_t head_dim, std::int64_t pos, const float* inv_freq, float* cos,
                 float* sin) {
  for (std::int64_t i = 0; i < head_dim / 2; ++i) {
    // Angles in double: pos * freq reaches thousands of radians at long contexts.
    double a = static_cast<double>(pos) * inv_freq[i];
    cos[i] = static_cast<float>(std::cos(a));
    sin[i] = static_cast<float>(std::sin(a));
  }
}

void rope_cs(float* x, std::int64_t head_dim, const float* cos, const float* sin, bool neox) {
  std::int64_t half = head_dim / 2;
  for (std::int64_t i = 0; i < half; ++i) {
    float c = cos[i], s = sin[i];
    float* p0 = neox ? x + i : x + 2 * i;
    float* p1 = neox ? x + i + half : x + 2 * i + 1;
    float x0 = *p0, x1 = *p1;
    *p0 = x0 * c - x1 * s;
    *p1 = x0 * s + x1 * c;
  }
}

void rope(float* x, std::int64_t head_dim, std::int64_t pos, const float* inv_freq, bool neox) {
  float cs[2 * 256];
  std::vector<float> big;
  float* c = cs;
  if (head_dim > 256) {
    big.resize(static_cast<std::size_t>(head_dim));
    c = big.data();
  }
  rope_angles(head_dim, pos, inv_freq, c, c + head_dim / 2);
  rope_cs(x, head_dim, c, c + head_dim / 2, neox);
}

void swiglu(float* a, const float* b, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) a[i] = a[i] / (1.0f + std::exp(-a[i])) * b[i];
}

void add(float* y, const float* x, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) y[i] += x[i];
}

}  // namespace tok::model
