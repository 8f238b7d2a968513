#include "formats/byte_level.hpp"

#include <array>
#include <cstdint>

#include "core/utf8.hpp"

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
  for (std::size_t i = 0; i < token.size();) {
    utf8::Decoded d = utf8::decode_at(token, i);
    if (!d.valid || d.cp >= m.to_byte.size() || m.to_byte[d.cp] < 0) return std::nullopt;
    out.push_back(static_cast<char>(m.to_byte[d.cp]));
    i += d.len;
  }
  return out;
}

std::string byte_level_encode(std::string_view bytes) {
  const Mapping& m = mapping();
  std::string out;
  for (unsigned char b : bytes) utf8::append(out, m.to_char[b]);
  return out;
}

}  // namespace tok::formats
