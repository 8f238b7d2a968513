#include "core/utf8.hpp"

#include <algorithm>
#include <cstring>

namespace tok::utf8 {

std::size_t complete_prefix(std::string_view s) {
  // Look back at most 3 bytes past continuation bytes for the lead byte of
  // the last sequence.
  std::size_t n = s.size();
  for (std::size_t back = 1; back <= std::min<std::size_t>(4, n); ++back) {
    auto c = static_cast<unsigned char>(s[n - back]);
    if (is_continuation(c)) continue;
    return char_length(c) > back ? n - back : n;
  }
  return n;  // only continuation bytes: invalid, release them
}

std::size_t valid_prefix_scalar(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  std::size_t i = 0;
  while (i < n) {
    // Most text is ASCII: check 32 bytes at a time (four words or'ed: one
    // branch a block), then 8.
    while (i + 32 <= n) {
      std::uint64_t w[4];
      std::memcpy(w, p + i, 32);
      if (((w[0] | w[1] | w[2] | w[3]) & 0x8080808080808080ULL) != 0) break;
      i += 32;
    }
    // The blocks may have ended exactly at the end of the input.
    if (i == n) break;
    if (i + 8 <= n) {
      std::uint64_t w;
      std::memcpy(&w, p + i, 8);
      if ((w & 0x8080808080808080ULL) == 0) {
        i += 8;
        continue;
      }
    }
    if (p[i] < 0x80) {
      ++i;
      continue;
    }
    std::size_t len = valid_char_length(s.substr(i));
    if (len == 0) return i;
    i += len;
  }
  return n;
}

}  // namespace tok::utf8
