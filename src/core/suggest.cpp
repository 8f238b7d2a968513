#include "core/suggest.hpp"

#include <algorithm>
#include <cctype>

namespace tok {

std::vector<std::string> suggest(std::string_view name, const std::vector<std::string>& known) {
  if (name.empty()) return {};  // "did you mean o1?" for nothing at all helps no one
  // std::tolower on a negative char (UTF-8 bytes in the name) is undefined.
  auto lower = [](char c) { return std::tolower(static_cast<unsigned char>(c)); };
  auto distance = [&lower](std::string_view a, std::string_view b) {
    std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
      cur[0] = i;
      for (std::size_t j = 1; j <= b.size(); ++j) {
        std::size_t sub = prev[j - 1] + (lower(a[i - 1]) != lower(b[j - 1]));
        cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
      }
      std::swap(prev, cur);
    }
    return prev[b.size()];
  };
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (const auto& k : known) {
    std::size_t d = distance(name, k);
    bool prefix = k.find(name) != std::string::npos || name.find(k) != std::string_view::npos;
    if (d <= std::max<std::size_t>(2, name.size() / 3) || (prefix && name.size() >= 3)) {
      scored.emplace_back(d, k);
    }
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (auto& [d, k] : scored) {
    if (out.size() < 3 && std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
  }
  return out;
}

}  // namespace tok
