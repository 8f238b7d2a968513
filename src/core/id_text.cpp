#include "core/id_text.hpp"

#include <bit>
#include <cstring>

namespace tok {

static_assert(std::endian::native == std::endian::little, "IdText packs bytes little-endian");

std::uint64_t IdText::pack(std::uint64_t id) const {
  char b[8] = {};
  b[0] = sep_;
  std::size_t n = 1 + Output::format_u64(id, b + 1);
  std::uint64_t w;
  std::memcpy(&w, b, 8);
  return w | (std::uint64_t{n} << 56);  // little-endian: byte 7 is the length
}

}  // namespace tok
