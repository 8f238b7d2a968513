#include "compare/ascii_segment.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>

#include "compare/simple_segment.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tok::compare::detail {
namespace {

// The class the kernel gives each byte: the masks below test exactly this.
WordClass kernel_class(unsigned char b) {
  if (b >= 0x80 || b == 0x0B || b == 0x0C) return WordClass::kNotSimple;
  if (static_cast<unsigned char>((b | 0x20) - 'a') < 26 || b == '@') return WordClass::kLetter;
  if (static_cast<unsigned char>(b - '0') < 10) return WordClass::kDigit;
  switch (b) {
    case '_': return WordClass::kUnderscore;
    case '.':
    case '\'': return WordClass::kMidNumLet;
    case ',':
    case ';': return WordClass::kMidNum;
    case ' ': return WordClass::kSpace;
    case '\r': return WordClass::kCR;
    case '\n': return WordClass::kLF;
    default: return b < 0x20 || b == 0x7F ? WordClass::kControl : WordClass::kOther;
  }
}

// Bit i describes byte i of a 64-byte block.
struct Masks {
  std::uint64_t letter = 0, digit = 0, under = 0;
  std::uint64_t mid_letter = 0;  // joins two letters: MidLetter, MidNumLet
  std::uint64_t mid_num = 0;     // joins two digits: MidNum, MidNumLet
  std::uint64_t cr = 0, lf = 0;
};

#if defined(__SSE2__)
// A byte b is in [lo, lo + len) when b + (0x80 - lo), as a signed byte, is
// below -128 + len (bytes >= 0x80 never reach the kernel).
std::uint64_t in_range(__m128i v, char lo, int len) {
  __m128i t = _mm_add_epi8(v, _mm_set1_epi8(static_cast<char>(0x80 - lo)));
  __m128i in = _mm_cmplt_epi8(t, _mm_set1_epi8(static_cast<char>(-128 + len)));
  return static_cast<std::uint16_t>(_mm_movemask_epi8(in));
}

std::uint64_t equal(__m128i v, char c) {
  return static_cast<std::uint16_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(c))));
}

Masks classify(const unsigned char* p) {
  Masks m;
  for (int k = 0; k < 4; ++k) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    int at = 16 * k;
    m.letter |= (in_range(_mm_or_si128(v, _mm_set1_epi8(0x20)), 'a', 26) | equal(v, '@')) << at;
    m.digit |= in_range(v, '0', 10) << at;
    m.under |= equal(v, '_') << at;
    std::uint64_t both = equal(v, '.') | equal(v, '\'');
    m.mid_letter |= both << at;
    m.mid_num |= (both | equal(v, ',') | equal(v, ';')) << at;
    m.cr |= equal(v, '\r') << at;
    m.lf |= equal(v, '\n') << at;
  }
  return m;
}
#else
Masks classify(const unsigned char* p) {
  Masks m;
  for (int i = 0; i < 64; ++i) {
    std::uint64_t bit = std::uint64_t{1} << i;
    switch (kernel_class(p[i])) {
      case WordClass::kLetter: m.letter |= bit; break;
      case WordClass::kDigit: m.digit |= bit; break;
      case WordClass::kUnderscore: m.under |= bit; break;
      case WordClass::kMidNumLet:
        m.mid_letter |= bit;
        m.mid_num |= bit;
        break;
      case WordClass::kMidNum: m.mid_num |= bit; break;
      case WordClass::kCR: m.cr |= bit; break;
      case WordClass::kLF: m.lf |= bit; break;
      default: break;
    }
  }
  return m;
}
#endif

// The block of up to 64 bytes at p (n of them); bytes past n are zero,
// which is Other (no letter, digit, mark or line end).
Masks classify(const unsigned char* p, std::size_t n) {
  if (n >= 64) return classify(p);
  unsigned char buf[64] = {};
  std::memcpy(buf, p, n);
  return classify(buf);
}

}  // namespace

bool ascii_kernel_matches_icu() {
  static const bool ok = [] {
    const SimpleClasses& classes = SimpleClasses::get();
    for (char32_t b = 0; b < 0x80; ++b) {
      if (kernel_class(static_cast<unsigned char>(b)) != classes.of(b)) return false;
    }
    return true;
  }();
  return ok;
}

std::size_t simple_ascii_end(std::string_view text, std::size_t from) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  std::size_t i = from, n = text.size();
#if defined(__SSE2__)
  for (; i + 16 <= n; i += 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
    // movemask has the high bits (>= 0x80); VT and FF are [0x0B, 0x0D).
    auto bad = static_cast<unsigned>(_mm_movemask_epi8(v)) | in_range(v, 0x0B, 2);
    if (bad) return i + static_cast<std::size_t>(std::countr_zero(bad));
  }
#endif
  while (i < n && kernel_class(s[i]) != WordClass::kNotSimple) ++i;
  return i;
}

AsciiLetters ascii_letters(std::string_view text, std::size_t from) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  std::size_t i = from, n = text.size(), letters = 0;
#if defined(__SSE2__)
  // Per-byte counters (a letter's compare result is -1) summed every 255
  // blocks, before they can wrap.
  const __m128i zero = _mm_setzero_si128();
  __m128i counts = zero;
  unsigned blocks = 0;
  auto flush = [&] {
    __m128i sums = _mm_sad_epu8(counts, zero);
    letters += static_cast<std::size_t>(_mm_cvtsi128_si64(sums)) +
               static_cast<std::size_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums)));
    counts = zero;
    blocks = 0;
  };
  for (; i + 16 <= n; i += 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
    __m128i t = _mm_add_epi8(_mm_or_si128(v, _mm_set1_epi8(0x20)),
                             _mm_set1_epi8(static_cast<char>(0x80 - 'a')));
    __m128i is_letter = _mm_cmplt_epi8(t, _mm_set1_epi8(static_cast<char>(-128 + 26)));
    auto high = static_cast<unsigned>(_mm_movemask_epi8(v));
    if (high) {
      auto k = static_cast<unsigned>(std::countr_zero(high));
      auto before = static_cast<unsigned>(_mm_movemask_epi8(is_letter)) & ((1u << k) - 1);
      letters += popcount64(before);
      flush();
      return {i + k, letters};
    }
    counts = _mm_sub_epi8(counts, is_letter);
    if (++blocks == 255) flush();
  }
  flush();
#endif
  for (; i < n && s[i] < 0x80; ++i) letters += static_cast<unsigned char>((s[i] | 0x20) - 'a') < 26;
  return {i, letters};
}

std::size_t segment_ascii(std::string_view text, std::size_t begin, std::size_t end,
                          WordBits& words) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  std::size_t graphemes = end - begin;
  // Bit 63 of the previous block's masks (byte begin - 1 is a line end, a
  // space or nothing: in no class) and bit 0 of the next block's.
  std::uint64_t prev_letter = 0, prev_digit = 0, prev_word = 0, prev_run = 0, prev_cr = 0;
  Masks cur = classify(s + begin, end - begin);
  for (std::size_t at = begin; at < end; at += 64) {
    Masks next = at + 64 < end ? classify(s + at + 64, end - at - 64) : Masks{};
    std::uint64_t word = cur.letter | cur.digit | cur.under;
    std::uint64_t next_word = next.letter | next.digit | next.under;
    auto before = [](std::uint64_t m, std::uint64_t prev) { return (m << 1) | prev; };
    auto after = [](std::uint64_t m, std::uint64_t next) { return (m >> 1) | (next << 63); };
    std::uint64_t joined =
        (cur.mid_letter & before(cur.letter, prev_letter) & after(cur.letter, next.letter & 1)) |
        (cur.mid_num & before(cur.digit, prev_digit) & after(cur.digit, next.digit & 1));
    // A '_' with no letter, digit or '_' beside it is a segment of its own
    // that is not a word (no joined punctuation can be beside a '_').
    std::uint64_t lone = cur.under & ~before(word, prev_word) & ~after(word, next_word & 1);
    std::uint64_t run = (word | joined) & ~lone;
    std::uint64_t run_before = before(run, prev_run);
    words.add_block(at, run & ~run_before, run & run_before);
    graphemes -= popcount64(cur.lf & before(cur.cr, prev_cr));
    prev_letter = cur.letter >> 63;
    prev_digit = cur.digit >> 63;
    prev_word = word >> 63;
    prev_run = run >> 63;
    prev_cr = cur.cr >> 63;
    cur = next;
  }
  return graphemes;
}

}  // namespace tok::compare::detail
