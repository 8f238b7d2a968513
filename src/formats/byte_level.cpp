#include "formats/byte_level.hpp"

#include <array>
#include <cstdint>

namespace tok::formats {
namespace {

struct Mapping {
  std::array<char32_t, 256> to_char{};
  std::array<std::int16_t, 512> to_byte{};  // code point (< 512) -> byte, -1 if none
  Mapping() {
    to_byte.fill(-1);
    auto printable = [](int b) {
      return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
    };
    int extra = 0;
    for (int b = 0; b < 256; ++b) {
      char32_t c = printable(b) ? static_cast<char32_t>(b) : static_cast<char32_t>(256 + extra++);
      to_char[b] = c;
      to_byte[c] = static_cast<std::int16_t>(b);
    }
  }
};

const Mapping& mapping() {
  static const Mapping m;
  return m;
}

}  // namespace

std::optional<std::string> byte_level_decode(std::string_view token) {
  const Mapping& m = mapping();
  std::string out;
  out.reserve(token.size());
  const auto* p = reinterpret_cast<const unsigned char*>(token.data());
  std::size_t n = token.size();
  for (std::size_t i = 0; i < n;) {
    char32_t c;
    if (p[i] < 0x80) {
      c = p[i];
      i += 1;
    } else if ((p[i] & 0xE0) == 0xC0 && i + 1 < n && (p[i + 1] & 0xC0) == 0x80) {
      c = (char32_t{p[i] & 0x1Fu} << 6) | (p[i + 1] & 0x3Fu);
      i += 2;
    } else {
      return std::nullopt;  // every mapped character is below U+0200
    }
    if (c >= m.to_byte.size() || m.to_byte[c] < 0) return std::nullopt;
    out.push_back(static_cast<char>(m.to_byte[c]));
  }
  return out;
}

std::string byte_level_encode(std::string_view bytes) {
  const Mapping& m = mapping();
  std::string out;
  for (unsigned char b : bytes) {
    char32_t c = m.to_char[b];
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back(static_cast<char>(0xC0 | (c >> 6)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
  }
  return out;
}

}  // namespace tok::formats
