#include "core/number_format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace tok {

std::string format_decimal(double v, int significant) {
  if (!std::isfinite(v)) return fmt::format("{}", v);
  if (v == 0) return "0";
  if (v < 0) return fmt::format("-{}", format_decimal(-v, significant));
  int magnitude = static_cast<int>(std::floor(std::log10(v)));  // 0.00005 -> -5
  // Decimals for `significant` digits, capped where a double has no more
  // (a cost is never below 1e-15 dollars: a token at $0.000001/M is 1e-12).
  int decimals = std::clamp(significant - 1 - magnitude, 0, 15);
  std::string s = fmt::format("{:.{}f}", v, decimals);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

std::string format_usd(double v) {
  if (v == 0) return "$0";
  if (v < 0) return fmt::format("-{}", format_usd(-v));
  if (v < 1) {
    // Cents at least ("$0.10", not "$0.1"), more digits only as needed.
    std::string s = format_decimal(v, 3);
    std::size_t dot = s.find('.');
    if (dot == std::string::npos) s += ".", dot = s.size() - 1;
    while (s.size() - dot - 1 < 2) s += '0';
    return fmt::format("${}", s);
  }
  double cents = std::round(v * 100);
  auto whole = static_cast<std::uint64_t>(cents / 100);
  auto frac = static_cast<unsigned>(cents - static_cast<double>(whole) * 100);
  return fmt::format("${}.{:02}", group_digits(whole), frac);
}

std::string group_digits(std::uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string hex_bytes(std::string_view bytes, std::string_view separator) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * (2 + separator.size()));
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (i > 0) out += separator;
    auto c = static_cast<unsigned char>(bytes[i]);
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
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

std::string si_scaled(double v, const std::string& unit) {
  static constexpr std::array<const char*, 7> kPrefixes = {"", "k", "M", "G", "T", "P", "E"};
  std::size_t p = 0;
  while (std::fabs(v) >= 1000 && p + 1 < kPrefixes.size()) {
    v /= 1000;
    ++p;
  }
  return p == 0 ? fmt::format("{:.0f} {}", v, unit)
                : fmt::format("{:.2f} {}{}", v, kPrefixes[p], unit);
}

}  // namespace tok
