#include "kv/byte_size.hpp"

#include <charconv>
#include <limits>

namespace tok::kv {
namespace {

struct Suffix {
  std::string_view name;
  int shift;
};
constexpr Suffix kSuffixes[] = {{"", 0},     {"B", 0},    {"KiB", 10},
                                {"MiB", 20}, {"GiB", 30}, {"TiB", 40}};

}  // namespace

Result<std::uint64_t> parse_byte_size(std::string_view s) {
  std::uint64_t n = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (ec != std::errc() || end == s.data()) {
    if (ec == std::errc::result_out_of_range) return make_error("size '{}' is too large", s);
    return make_error(
        "size '{}': expected a number of bytes such as 1000000, 512KiB, 64MiB or 1GiB", s);
  }
  std::string_view unit(end, static_cast<std::size_t>(s.data() + s.size() - end));
  for (const Suffix& suf : kSuffixes) {
    if (unit != suf.name) continue;
    if (suf.shift > 0 && n > (std::numeric_limits<std::uint64_t>::max() >> suf.shift)) {
      return make_error("size '{}' is too large", s);
    }
    return n << suf.shift;
  }
  if (unit == "K" || unit == "KB" || unit == "M" || unit == "MB" || unit == "G" || unit == "GB") {
    return make_error("size '{}': unit '{}' is ambiguous; use KiB, MiB or GiB (powers of 1024)", s,
                      unit);
  }
  return make_error("size '{}': unknown unit '{}'; use KiB, MiB, GiB, TiB or plain bytes", s, unit);
}

}  // namespace tok::kv
