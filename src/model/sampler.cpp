#include "model/sampler.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_set>

namespace tok::model {

Sampler::Sampler(const SamplerParams& params) : p_(params), state_(params.seed) {}

double Sampler::uniform() {
  std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);  // SplitMix64
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

bpe::TokenId Sampler::sample(std::span<const float> logits, std::span<const bpe::TokenId> history) {
  cand_.resize(logits.size());
  for (std::size_t i = 0; i < logits.size(); ++i)
    cand_[i] = {logits[i], static_cast<bpe::TokenId>(i)};
  if (p_.repeat_penalty != 1.0f && p_.repeat_last_n > 0) {
    std::size_t from = history.size() > static_cast<std::size_t>(p_.repeat_last_n)
                           ? history.size() - static_cast<std::size_t>(p_.repeat_last_n)
                           : 0;
    std::unordered_set<bpe::TokenId> seen(history.begin() + static_cast<std::ptrdiff_t>(from),
                                          history.end());
    for (bpe::TokenId id : seen) {
      if (id >= cand_.size()) continue;
      float& l = cand_[id].first;
      l = l > 0 ? l / p_.repeat_penalty : l * p_.repeat_penalty;
    }
  }
  auto by_value = [](const auto& a, const auto& b) {
    return a.first > b.first || (a.first == b.first && a.second < b.second);
  };
  if (p_.greedy || p_.temperature <= 0) {
    return std::min_element(cand_.begin(), cand_.end(), by_value)->second;
  }
  std::size_t k = cand_.size();
  if (p_.top_k > 0 && static_cast<std::size_t>(p_.top_k) < k)
    k = static_cast<std::size_t>(p_.top_k);
  std::partial_sort(cand_.begin(), cand_.begin() + static_cast<std::ptrdiff_t>(k), cand_.end(),
                    by_value);
  cand_.resize(k);
  float max = cand_[0].first;
  double sum = 0;
  for (auto& c : cand_) {
    c.first = std::exp((c.first - max) / p_.temperature);
    sum += c.first;
  }
  // top-p: the smallest prefix whose probability reaches p; min-p: drop
  // tokens less likely than min_p times the most likely one.
  double acc = 0;
  std::size_t keep = 0;
  float floor = static_cast<float>(p_.min_p * cand_[0].first);
  for (; keep < cand_.size(); ++keep) {
    if (keep > 0 && (acc >= p_.top_p * sum || cand_[keep].first < floor)) break;
    acc += cand_[keep].first;
  }
  double r = uniform() * acc;
  for (std::size_t i = 0; i < keep; ++i) {
    r -= cand_[i].first;
    if (r < 0) return cand_[i].second;
  }
  return cand_[keep - 1].second;
}

static double log_sum_exp(std::span<const float> logits, float& max) {
  max = *std::max_element(logits.begin(), logits.end());
  double s = 0;
  for (float l : logits) s += std::exp(static_cast<double>(l - max));
  return std::log(s);
}

float logprob_of(std::span<const float> logits, bpe::TokenId id) {
  float max;
  double lse = log_sum_exp(logits, max);
  return static_cast<float>(logits[id] - max - lse);
}

std::vector<std::pair<bpe::TokenId, float>> top_logprobs(std::span<const float> logits, int k) {
  float max;
  double lse = log_sum_exp(logits, max);
  std::vector<std::pair<bpe::TokenId, float>> out;
  for (std::size_t i = 0; i < logits.size(); ++i)
    out.emplace_back(static_cast<bpe::TokenId>(i), logits[i]);
  std::size_t n = std::min(out.size(), static_cast<std::size_t>(std::max(0, k)));
  std::partial_sort(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(n), out.end(),
                    [](const auto& a, const auto& b) {
                      return a.second > b.second || (a.second == b.second && a.first < b.first);
                    });
  out.resize(n);
  for (auto& [id, l] : out) l = static_cast<float>(l - max - lse);
  return out;
}

}  // namespace tok::model
