// hash_short (encoder's fast path for pieces of up to 16 bytes) must equal
// hash_bytes exactly: the merge table's index and the caches are keyed by it.
#include <doctest/doctest.h>

#include <cstdint>
#include <string_view>

#include "bpe/hash.hpp"

TEST_CASE("hash_short equals hash_bytes for every length 1..16") {
  // All-zero and all-0xFF bytes first, then random ones; the buffer sits at
  // every offset from a page end, so the masked word load and the exact
  // fallback are both taken.
  alignas(4096) static unsigned char page[2 * 4096];
  std::uint64_t x = 0x243F6A8885A308D3ull;
  for (int round = 0; round < 2000; ++round) {
    unsigned char* buf = page + 4096 - 1 - round % 24;
    for (int j = 0; j < 16; ++j) {
      unsigned char& b = buf[j];
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      b = static_cast<unsigned char>(round < 16 ? (round & 1 ? 0xFF : 0) : x >> 56);
    }
    for (std::size_t n = 1; n <= 16; ++n) {
      std::string_view s(reinterpret_cast<const char*>(buf), n);
      tok::bpe::ShortKey k = tok::bpe::short_key(buf, n);
      REQUIRE(tok::bpe::hash_short(k, n) == tok::bpe::hash_bytes(s));
    }
  }
}
