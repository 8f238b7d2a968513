#include "core/byte_format.hpp"

#include <fmt/format.h>

#include <array>

namespace tok {

std::string group_digits(std::uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string human_bytes(std::uint64_t n) {
  if (n < 1024) return fmt::format("{} B", n);
  static constexpr std::array<const char*, 6> kUnits = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(n) / 1024;
  std::size_t u = 0;
  while (v >= 1023.995 && u + 1 < kUnits.size()) {
    v /= 1024;
    ++u;
  }
  // Three significant digits; the thresholds sit where rounding would carry
  // into a fourth ("9.996" would print as "10.00").
  if (v < 9.995) return fmt::format("{:.2f} {}", v, kUnits[u]);
  if (v < 99.95) return fmt::format("{:.1f} {}", v, kUnits[u]);
  return fmt::format("{:.0f} {}", v, kUnits[u]);
}

}  // namespace tok
