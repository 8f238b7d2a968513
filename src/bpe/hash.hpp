// Fast non-cryptographic hashing of short byte strings and 64-bit keys, used
// by the merge table's open-addressing indexes. (Mixing as in wyhash/rapidhash:
// 64x64->128 multiply folding; quality is ample for table indexing.)
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace tok::bpe {

inline std::uint64_t mix64(std::uint64_t a, std::uint64_t b) {
  __uint128_t r = static_cast<__uint128_t>(a) * b;
  return static_cast<std::uint64_t>(r) ^ static_cast<std::uint64_t>(r >> 64);
}

inline std::uint64_t hash_u64(std::uint64_t k) {
  return mix64(k ^ 0x9E3779B97F4A7C15ull, 0xBF58476D1CE4E5B9ull);
}

// The n (0..8) bytes at p as a little-endian integer, zero-padded, reading
// only those bytes. Fixed-size loads instead of memcpy(&v, p, n): a
// variable-length memcpy is a library call, and this runs once per piece.
inline std::uint64_t load_le(const unsigned char* p, std::size_t n) {
  auto load32 = [](const unsigned char* q) {
    std::uint32_t v;
    std::memcpy(&v, q, 4);
    return std::uint64_t{v};
  };
  if (n >= 8) {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }
  if (n >= 4) return load32(p) | (load32(p + n - 4) << ((n - 4) * 8));
  if (n == 0) return 0;
  return std::uint64_t{p[0]} | (std::uint64_t{p[n >> 1]} << ((n >> 1) * 8)) |
         (std::uint64_t{p[n - 1]} << ((n - 1) * 8));
}

inline std::uint64_t hash_bytes(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  std::size_t n = s.size();
  std::uint64_t seed = 0xA0761D6478BD642Full ^ n;
  while (n >= 8) {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    seed = mix64(v ^ 0xE7037ED1A0B428DBull, seed ^ 0x8EBC6AF09C88C6E3ull);
    p += 8;
    n -= 8;
  }
  if (n) seed = mix64(load_le(p, n) ^ 0x589965CC75374CC3ull, seed ^ 0x1D8E4E27C47D124Full);
  return mix64(seed, 0x9E3779B97F4A7C15ull);
}

// A piece of 1..16 bytes as two zero-padded little-endian words: k0 holds
// bytes 0..7, k1 bytes 8..15. The hot cache compares pieces by these words,
// and hash_short derives hash_bytes from them, so a short piece is loaded
// once and without a length-dependent chain of loads for the rest.
struct ShortKey {
  std::uint64_t k0 = 0, k1 = 0;
};

// Sanitizer builds take the exact loads (the word load below reads past the
// piece, which AddressSanitizer would report, and ThreadSanitizer too when
// the bytes after it were freed).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TOK_HASH_EXACT_LOADS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) || \
    __has_feature(thread_sanitizer)
#define TOK_HASH_EXACT_LOADS 1
#endif
#endif

inline ShortKey short_key(const unsigned char* p, std::size_t n) {
  ShortKey k;
  if (n <= 8) {
#ifndef TOK_HASH_EXACT_LOADS
    // One 8-byte load, masked to n bytes, when it stays inside p's 4 KiB
    // page (so it cannot fault): no branch on the length, which varies from
    // piece to piece and made load_le's branches mispredict.
    if ((reinterpret_cast<std::uintptr_t>(p) & 4095) <= 4096 - 8) {
      std::memcpy(&k.k0, p, 8);
      k.k0 &= ~std::uint64_t{0} >> (64 - 8 * n);
      return k;
    }
#endif
    k.k0 = load_le(p, n);
  } else {
    std::memcpy(&k.k0, p, 8);
    std::memcpy(&k.k1, p + n - 8, 8);  // bytes n-8..n-1; drop those k0 holds
    k.k1 >>= (16 - n) * 8;
  }
  return k;
}

// hash_bytes of the n (1..16) bytes whose ShortKey is k, equal to it for
// every such piece (tests check): the same rounds, each constant chosen by n
// instead of by a loop.
inline std::uint64_t hash_short(ShortKey k, std::size_t n) {
  std::uint64_t seed = 0xA0761D6478BD642Full ^ n;
  bool full0 = n >= 8;  // bytes 0..7 are a full word (the loop's round)
  seed = mix64(k.k0 ^ (full0 ? 0xE7037ED1A0B428DBull : 0x589965CC75374CC3ull),
               seed ^ (full0 ? 0x8EBC6AF09C88C6E3ull : 0x1D8E4E27C47D124Full));
  if (n > 8) {
    bool full1 = n == 16;
    seed = mix64(k.k1 ^ (full1 ? 0xE7037ED1A0B428DBull : 0x589965CC75374CC3ull),
                 seed ^ (full1 ? 0x8EBC6AF09C88C6E3ull : 0x1D8E4E27C47D124Full));
  }
  return mix64(seed, 0x9E3779B97F4A7C15ull);
}

}  // namespace tok::bpe
