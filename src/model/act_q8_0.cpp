#include "model/act_q8_0.hpp"

#include <algorithm>
#include <cmath>

#include "ggml/half.hpp"

namespace tok::model {

void quantize_act_q8_0(const float* x, ggml::BlockQ8_0* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n / ggml::kQK; ++i, x += ggml::kQK) {
    float amax = 0;
    for (int j = 0; j < ggml::kQK; ++j) amax = std::max(amax, std::fabs(x[j]));
    float id = amax != 0 ? 127.0f / amax : 0.0f;
    y[i].d = ggml::f32_to_fp16(amax / 127.0f);
    for (int j = 0; j < ggml::kQK; ++j)
      y[i].qs[j] = static_cast<std::int8_t>(std::nearbyint(x[j] * id));
  }
}

}  // namespace tok::model
