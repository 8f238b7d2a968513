// valid_utf8_prefix: the vector form, 16 bytes a step (x86 with SSSE3).
//
// The scalar loop leaves its word-sized ASCII steps at every non-ASCII
// character and takes those a byte at a time, with a branch on each lead
// byte's kind: on text that mixes scripts (prose with accents and dashes,
// CJK) that is most of its time, 7 ms of a 25 MB mix. Here every 16 bytes
// are checked together by the method of Keiser and Lemire ("Validating
// UTF-8 in less than one instruction per byte", 2021): each error of RFC
// 3629 is a property of two adjacent bytes, of the high nibble of the
// first, the low nibble of the first and the high nibble of the second, so
// three 16-entry table lookups (byte shuffles) and two ANDs flag every bad
// pair at once; a third or fourth byte that must continue a sequence is
// found from the bytes two and three back. A block that is not valid, and
// the text's last bytes, go to the scalar loop from a character start a
// few bytes before, which finds the exact length of the valid prefix.
#include <cstdint>
#include <cstring>

#include "core/cpu_features.hpp"
#include "core/utf8.hpp"
#include "text/pretokenizer.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define TOK_UTF8_SSSE3 1
#endif

namespace tok::text {

namespace {

#if defined(TOK_UTF8_SSSE3)

// Flags of what a byte pair may get wrong (first byte, second byte).
constexpr std::uint8_t kTooShort = 1 << 0;      // lead, then not a continuation
constexpr std::uint8_t kTooLong = 1 << 1;       // ASCII, then a continuation
constexpr std::uint8_t kOverlong3 = 1 << 2;     // E0, then 80..9F
constexpr std::uint8_t kTooLarge = 1 << 3;      // F4, then 90..BF; F5..FF, then 90..BF
constexpr std::uint8_t kSurrogate = 1 << 4;     // ED, then A0..BF
constexpr std::uint8_t kOverlong2 = 1 << 5;     // C0 or C1, then a continuation
constexpr std::uint8_t kTooLarge1000 = 1 << 6;  // F5..FF, then 80..8F
constexpr std::uint8_t kOverlong4 = 1 << 6;     // F0, then 80..8F
constexpr std::uint8_t kTwoConts = 1 << 7;      // a continuation, then another
// Flags the low nibble of the first byte never rules out.
constexpr std::uint8_t kAnyLow = kTooShort | kTooLong | kTwoConts;

__attribute__((target("ssse3"))) inline __m128i table(
    std::uint8_t a0, std::uint8_t a1, std::uint8_t a2, std::uint8_t a3, std::uint8_t a4,
    std::uint8_t a5, std::uint8_t a6, std::uint8_t a7, std::uint8_t a8, std::uint8_t a9,
    std::uint8_t a10, std::uint8_t a11, std::uint8_t a12, std::uint8_t a13, std::uint8_t a14,
    std::uint8_t a15) {
  return _mm_setr_epi8(static_cast<char>(a0), static_cast<char>(a1), static_cast<char>(a2),
                       static_cast<char>(a3), static_cast<char>(a4), static_cast<char>(a5),
                       static_cast<char>(a6), static_cast<char>(a7), static_cast<char>(a8),
                       static_cast<char>(a9), static_cast<char>(a10), static_cast<char>(a11),
                       static_cast<char>(a12), static_cast<char>(a13), static_cast<char>(a14),
                       static_cast<char>(a15));
}

// The high nibble of each byte (shuffle indices: bit 7 clear).
__attribute__((target("ssse3"))) inline __m128i high_nibble(__m128i v) {
  return _mm_and_si128(_mm_srli_epi16(v, 4), _mm_set1_epi8(0x0F));
}

// Nonzero lanes where the block `in`, after the block `prev`, breaks RFC 3629.
__attribute__((target("ssse3"))) inline __m128i block_errors(__m128i in, __m128i prev) {
  const __m128i first_high = table(kTooLong, kTooLong, kTooLong, kTooLong, kTooLong, kTooLong,
                                   kTooLong, kTooLong,                                   // 0_______
                                   kTwoConts, kTwoConts, kTwoConts, kTwoConts,           // 10______
                                   kTooShort | kOverlong2,                               // 1100____
                                   kTooShort,                                            // 1101____
                                   kTooShort | kOverlong3 | kSurrogate,                  // 1110____
                                   kTooShort | kTooLarge | kTooLarge1000 | kOverlong4);  // 1111____
  const __m128i first_low =
      table(kAnyLow | kOverlong3 | kOverlong2 | kOverlong4,  // ____0000
            kAnyLow | kOverlong2,                            // ____0001
            kAnyLow, kAnyLow,                                // ____001_
            kAnyLow | kTooLarge,                             // ____0100
            kAnyLow | kTooLarge | kTooLarge1000,             // ____0101 and above
            kAnyLow | kTooLarge | kTooLarge1000, kAnyLow | kTooLarge | kTooLarge1000,
            kAnyLow | kTooLarge | kTooLarge1000, kAnyLow | kTooLarge | kTooLarge1000,
            kAnyLow | kTooLarge | kTooLarge1000, kAnyLow | kTooLarge | kTooLarge1000,
            kAnyLow | kTooLarge | kTooLarge1000,
            kAnyLow | kTooLarge | kTooLarge1000 | kSurrogate,  // ____1101
            kAnyLow | kTooLarge | kTooLarge1000, kAnyLow | kTooLarge | kTooLarge1000);
  constexpr std::uint8_t kCont = kTooLong | kOverlong2 | kTwoConts;
  const __m128i second_high =
      table(kTooShort, kTooShort, kTooShort, kTooShort, kTooShort, kTooShort, kTooShort,
            kTooShort,                                                       // 0_______
            kCont | kOverlong3 | kTooLarge1000 | kOverlong4,                 // 1000____
            kCont | kOverlong3 | kTooLarge,                                  // 1001____
            kCont | kSurrogate | kTooLarge, kCont | kSurrogate | kTooLarge,  // 101_____
            kTooShort, kTooShort, kTooShort, kTooShort);                     // 11______
  __m128i prev1 = _mm_alignr_epi8(in, prev, 15);  // the byte before each byte
  __m128i pairs = _mm_and_si128(
      _mm_and_si128(_mm_shuffle_epi8(first_high, high_nibble(prev1)),
                    _mm_shuffle_epi8(first_low, _mm_and_si128(prev1, _mm_set1_epi8(0x0F)))),
      _mm_shuffle_epi8(second_high, high_nibble(in)));
  // A byte two after a 3- or 4-byte lead, or three after a 4-byte lead, must
  // be a continuation: there the pair check flagged kTwoConts, which is then
  // right, and its absence wrong.
  __m128i prev2 = _mm_alignr_epi8(in, prev, 14);
  __m128i prev3 = _mm_alignr_epi8(in, prev, 13);
  __m128i third = _mm_subs_epu8(prev2, _mm_set1_epi8(static_cast<char>(0xE0 - 0x80)));
  __m128i fourth = _mm_subs_epu8(prev3, _mm_set1_epi8(static_cast<char>(0xF0 - 0x80)));
  __m128i must_continue =
      _mm_and_si128(_mm_or_si128(third, fourth), _mm_set1_epi8(static_cast<char>(0x80)));
  return _mm_xor_si128(must_continue, pairs);
}

// Nonzero when the block ends inside a character (a lead byte in its last
// three places that needs more bytes than the block has left).
__attribute__((target("ssse3"))) inline __m128i block_unfinished(__m128i in) {
  const __m128i max_ok = table(0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                               0xFF, 0xFF, 0xF0 - 1, 0xE0 - 1, 0xC0 - 1);
  return _mm_subs_epu8(in, max_ok);
}

// The start of the character that holds byte i - 3 (i > 3): every character
// that starts before it ended before i, in blocks already found valid.
std::size_t safe_restart(const unsigned char* p, std::size_t i) {
  std::size_t j = i - 3;
  for (int k = 0; k < 3 && j > 0 && (p[j] & 0xC0) == 0x80; ++k) --j;
  return j;
}

__attribute__((target("ssse3"))) std::size_t valid_prefix_ssse3(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  std::size_t i = 0;
  __m128i prev = _mm_setzero_si128();
  __m128i unfinished = _mm_setzero_si128();
  // Sixty-four bytes a step with one branch: text that mixes scripts
  // changes between ASCII and other blocks too often for a branch a block
  // to be guessed. Any error in the step: the loop below finds where.
  while (i + 64 <= n) {
    __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i + 16));
    __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i + 32));
    __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i + 48));
    __m128i err;
    __m128i next_unfinished;
    if (_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d))) == 0) {
      err = unfinished;
      next_unfinished = _mm_setzero_si128();
    } else {
      err = _mm_or_si128(_mm_or_si128(block_errors(a, prev), block_errors(b, a)),
                         _mm_or_si128(block_errors(c, b), block_errors(d, c)));
      next_unfinished = block_unfinished(d);
    }
    if (_mm_movemask_epi8(_mm_cmpeq_epi8(err, _mm_setzero_si128())) != 0xFFFF) break;
    prev = d;
    unfinished = next_unfinished;
    i += 64;
  }
  while (i + 16 <= n) {
    __m128i in = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    __m128i err;
    if (_mm_movemask_epi8(in) == 0) {
      err = unfinished;  // ASCII: wrong only after an unfinished character
      unfinished = _mm_setzero_si128();
    } else {
      err = block_errors(in, prev);
      unfinished = block_unfinished(in);
    }
    if (_mm_movemask_epi8(_mm_cmpeq_epi8(err, _mm_setzero_si128())) != 0xFFFF) break;
    prev = in;
    i += 16;
  }
  if (i < 4) return utf8::valid_prefix_scalar(s);
  std::size_t from = safe_restart(p, i);
  return from + utf8::valid_prefix_scalar(s.substr(from));
}

#endif

}  // namespace

std::size_t valid_utf8_prefix(std::string_view s) {
#if defined(TOK_UTF8_SSSE3)
  if (s.size() >= 64 && cpu_features().ssse3) return valid_prefix_ssse3(s);
#endif
  return utf8::valid_prefix_scalar(s);
}

}  // namespace tok::text
