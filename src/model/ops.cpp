#include "model/ops.hpp"

#include <bit>
#include <cmath>
#include <cstdint>

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

namespace {

// Angles in double: pos * freq reaches thousands of radians at long contexts.
double angle(std::int64_t pos, float inv_freq) { return static_cast<double>(pos) * inv_freq; }

// Rotates pair i of a head vector (adjacent, or i and i + half for neox).
void rotate_pair(float* x, std::int64_t i, std::int64_t half, float c, float s, bool neox) {
  float* p0 = neox ? x + i : x + 2 * i;
  float* p1 = neox ? x + i + half : x + 2 * i + 1;
  float x0 = *p0, x1 = *p1;
  *p0 = x0 * c - x1 * s;
  *p1 = x0 * s + x1 * c;
}

}  // namespace

void rope(float* x, std::int64_t head_dim, std::int64_t pos, const float* inv_freq, bool neox) {
  std::int64_t half = head_dim / 2;
  for (std::int64_t i = 0; i < half; ++i) {
    double a = angle(pos, inv_freq[i]);
    rotate_pair(x, i, half, static_cast<float>(std::cos(a)), static_cast<float>(std::sin(a)), neox);
  }
}

void rope_angles(std::int64_t head_dim, std::int64_t pos, const float* inv_freq, float* cos,
                 float* sin) {
  for (std::int64_t i = 0; i < head_dim / 2; ++i) {
    double a = angle(pos, inv_freq[i]);
    cos[i] = static_cast<float>(std::cos(a));
    sin[i] = static_cast<float>(std::sin(a));
  }
}

void rope_cs(float* x, std::int64_t head_dim, const float* cos, const float* sin, bool neox) {
  std::int64_t half = head_dim / 2;
  for (std::int64_t i = 0; i < half; ++i) rotate_pair(x, i, half, cos[i], sin[i], neox);
}

void swiglu(float* a, const float* b, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) a[i] = a[i] / (1.0f + std::exp(-a[i])) * b[i];
}

void geglu(float* a, const float* b, std::int64_t n) {
  constexpr float kSqrt2OverPi = 0.7978845608028654f;
  for (std::int64_t i = 0; i < n; ++i) {
    float x = a[i];
    a[i] = 0.5f * x * (1.0f + std::tanh(kSqrt2OverPi * x * (1.0f + 0.044715f * x * x))) * b[i];
  }
}

void scale(float* y, float s, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) y[i] *= s;
}

void add(float* y, const float* x, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) y[i] += x[i];
}

bool all_finite(const float* x, std::int64_t n) {
  constexpr std::uint32_t kExp = 0x7f800000u;  // all ones: NaN or infinity
  std::uint32_t bad = 0;
  for (std::int64_t i = 0; i < n; ++i) bad |= (std::bit_cast<std::uint32_t>(x[i]) & kExp) == kExp;
  return bad == 0;
}

bool has_nan(const float* x, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) {
    std::uint32_t b = std::bit_cast<std::uint32_t>(x[i]);
    if ((b & 0x7f800000u) == 0x7f800000u && (b & 0x007fffffu) != 0) return true;
  }
  return false;
}

}  // namespace tok::model
