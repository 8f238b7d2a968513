#include "cli/numeric_options.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace tok::cli {

CLI::Validator integer_in(std::uint64_t lo, std::uint64_t hi) {
  std::string range = fmt::format("an integer from {} to {}", lo, hi);
  return CLI::Validator(
      [lo, hi, range](std::string& text) -> std::string {
        bool digits = !text.empty() && text.size() <= 20 &&
                      text.find_first_not_of("0123456789") == std::string::npos;
        if (digits) {
          errno = 0;
          unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
          if (errno == 0 && v >= lo && v <= hi) return {};
        }
        return fmt::format("must be {}, not '{}'", range, text.substr(0, 40));
      },
      "INT", "integer_in");
}

CLI::Validator real_in(double lo, double hi) {
  std::string range = fmt::format("a number from {} to {}", lo, hi);
  return CLI::Validator(
      [lo, hi, range](std::string& text) -> std::string {
        char* end = nullptr;
        errno = 0;
        double v = text.empty() ? NAN : std::strtod(text.c_str(), &end);
        if (end && *end == '\0' && errno == 0 && std::isfinite(v) && v >= lo && v <= hi) return {};
        return fmt::format("must be {}, not '{}'", range, text.substr(0, 40));
      },
      "NUMBER", "real_in");
}

}  // namespace tok::cli
